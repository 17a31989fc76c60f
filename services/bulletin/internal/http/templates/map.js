// The whole map of claimed plots on a canvas, drawn from
// GET /api/world/bulletin/map (one bit per grid cell, so 100,000 plots cost
// no more than ten): pan by dragging or with Shift and the arrow keys, zoom
// with the wheel, the buttons or + and -, and a plot's owner and
// coordinates on hover or, from the keyboard, at the cursor (arrows move
// it, n and p jump to the next and previous plot).
(function () {
  "use strict";
  var SIDE = 1000, BYTES = SIDE * SIDE / 8, MAX_SCALE = 40;
  // Pixel colours as little-endian RGBA words: world, plot, commons.
  var WORLD = 0xffe6f1f4, PLOT = 0xffa86738, COMMONS = 0xff3f6b2f;
  var root = document.getElementById("live-map");
  if (!root || !window.fetch) return;
  var canvas = root.querySelector("canvas"), ctx = canvas.getContext("2d");
  var status = document.getElementById("map-status"), tip = document.getElementById("map-tip");
  var image = document.createElement("canvas");
  image.width = image.height = SIDE;
  var bits = null, etag = null, fitted = false, loading = false, again = false;
  var view = { x: 0, y: 0, scale: 1 }; // the top left cell shown, CSS px per cell
  var cursor = null, owners = new Map();

  root.hidden = false;
  var svgFigure = document.getElementById("static-map");
  if (svgFigure) svgFigure.hidden = true;

  function occupied(x, y) {
    if (!bits || x < 0 || y < 0 || x >= SIDE || y >= SIDE) return false;
    var i = y * SIDE + x;
    return (bits[i >> 3] & (0x80 >> (i & 7))) !== 0;
  }

  function plotId(x, y) { return x === 0 && y === 0 ? "plot_0_0" : "plot_x" + x + "_y" + y; }

  // paint turns the bitmap into a 1000 × 1000 image once per change, so
  // that panning and zooming only scale that image.
  function paint() {
    var g = image.getContext("2d"), img = g.createImageData(SIDE, SIDE);
    var px = new Uint32Array(img.data.buffer), n = 0;
    var box = { x0: 0, y0: 0, x1: 0, y1: 0 }; // the commons is always on the map
    px.fill(WORLD);
    for (var i = 0; i < BYTES; i++) {
      var b = bits[i];
      if (!b) continue;
      for (var k = 0; k < 8; k++) {
        if (!(b & (0x80 >> k))) continue;
        var c = i * 8 + k, x = c % SIDE, y = (c - x) / SIDE;
        px[c] = PLOT;
        n++;
        if (x < box.x0) box.x0 = x; if (x > box.x1) box.x1 = x;
        if (y < box.y0) box.y0 = y; if (y > box.y1) box.y1 = y;
      }
    }
    px[0] = COMMONS;
    g.putImageData(img, 0, 0);
    return { count: n, box: box };
  }

  function size() { return { w: canvas.clientWidth || 1, h: canvas.clientHeight || 1 }; }

  // fit shows the plots' bounding box with a margin, as the static map does.
  function fit(box) {
    var s = size(), w = box.x1 - box.x0 + 1, h = box.y1 - box.y0 + 1;
    var margin = Math.max(2, Math.floor(Math.max(w, h) / 10));
    w += 2 * margin; h += 2 * margin;
    view.scale = Math.min(MAX_SCALE, s.w / w, s.h / h);
    view.x = (box.x0 + box.x1 + 1) / 2 - s.w / view.scale / 2;
    view.y = (box.y0 + box.y1 + 1) / 2 - s.h / view.scale / 2;
  }

  function draw() {
    var s = size(), dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(s.w * dpr) || canvas.height !== Math.round(s.h * dpr)) {
      canvas.width = Math.round(s.w * dpr);
      canvas.height = Math.round(s.h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#e9ecef";
    ctx.fillRect(0, 0, s.w, s.h);
    // Below a pixel per cell, smoothing averages the cells a pixel covers,
    // so a lone plot stays faintly visible instead of being skipped.
    ctx.imageSmoothingEnabled = view.scale < 1;
    ctx.drawImage(image, -view.x * view.scale, -view.y * view.scale, SIDE * view.scale, SIDE * view.scale);
    var c = screenOf(0, 0);
    ctx.strokeStyle = "#2f6b3f";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(c.x, c.y, Math.max(6, view.scale), 0, 2 * Math.PI);
    ctx.stroke();
    if (cursor) {
      var p = screenOf(cursor.x, cursor.y), r = Math.max(4, view.scale / 2 + 2);
      ctx.strokeStyle = "#1d2327";
      ctx.strokeRect(p.x - r, p.y - r, 2 * r, 2 * r);
    }
  }

  // screenOf is the centre of cell (x, y) in the canvas's CSS pixels.
  function screenOf(x, y) { return { x: (x + 0.5 - view.x) * view.scale, y: (y + 0.5 - view.y) * view.scale }; }
  function cellAt(px, py) { return { x: Math.floor(view.x + px / view.scale), y: Math.floor(view.y + py / view.scale) }; }

  function load() {
    if (loading) { again = true; return; }
    loading = true;
    var t0 = performance.now(), headers = {};
    if (etag) headers["If-None-Match"] = etag;
    fetch("/api/world/bulletin/map", { headers: headers, cache: "no-store" }).then(function (r) {
      if (r.status === 304 || !r.ok) return null;
      var tag = r.headers.get("ETag");
      return r.arrayBuffer().then(function (b) { return { tag: tag, bits: new Uint8Array(b) }; });
    }).then(function (got) {
      if (!got || got.bits.length !== BYTES) return;
      etag = got.tag;
      bits = got.bits;
      owners.clear(); // a cell may have changed hands
      var drawn = paint();
      if (!fitted) { fit(drawn.box); fitted = true; }
      draw();
      canvas.setAttribute("data-plots", String(drawn.count));
      canvas.setAttribute("data-draw-ms", (performance.now() - t0).toFixed(1));
      document.getElementById("map-count").textContent = String(drawn.count);
    }, function () {}).finally(function () {
      loading = false;
      if (again) { again = false; load(); }
    });
  }

  // owner resolves to the owner's name of a claimed cell, read once from
  // the plot's public record.
  function owner(x, y) {
    var k = x + "," + y;
    if (!owners.has(k)) {
      owners.set(k, fetch("/api/world/plots/" + plotId(x, y)).then(function (r) { return r.ok ? r.json() : null; })
        .then(function (b) { return b && b.plot ? (b.plot.display_name || b.plot.owner_agent_id || "no name") : null; }, function () { return null; }));
    }
    return owners.get(k);
  }

  // describe shows cell (x, y) in the tooltip and the status line; names
  // are set as text.
  function describe(x, y, announce) {
    var where = "(" + x + ", " + y + ")";
    if (!occupied(x, y)) {
      tip.hidden = true;
      if (announce) status.textContent = where + ": no plot";
      return;
    }
    var p = screenOf(x, y);
    tip.style.left = Math.round(p.x + 12) + "px";
    tip.style.top = Math.round(p.y + 12) + "px";
    tip.textContent = plotId(x, y) + " " + where;
    tip.hidden = false;
    if (announce) status.textContent = plotId(x, y) + " " + where;
    owner(x, y).then(function (name) {
      if (name === null) return;
      var text = name + " — " + plotId(x, y) + " " + where;
      if (tip.textContent.indexOf(plotId(x, y) + " ") >= 0 && !tip.hidden) tip.textContent = text;
      if (announce && cursor && cursor.x === x && cursor.y === y) status.textContent = text;
    });
  }

  function zoom(f, at) {
    var s = size(), a = at || { x: s.w / 2, y: s.h / 2 };
    var min = Math.min(s.w, s.h) / SIDE / 2;
    var next = Math.max(min, Math.min(MAX_SCALE, view.scale * f));
    view.x += a.x / view.scale - a.x / next;
    view.y += a.y / view.scale - a.y / next;
    view.scale = next;
    draw();
  }

  function pan(dx, dy) { view.x += dx / view.scale; view.y += dy / view.scale; draw(); }

  // keep pans the view so that the cursor stays on the canvas.
  function keep() {
    var s = size(), p = screenOf(cursor.x, cursor.y);
    if (p.x < 0 || p.x > s.w) view.x = cursor.x + 0.5 - s.w / view.scale / 2;
    if (p.y < 0 || p.y > s.h) view.y = cursor.y + 0.5 - s.h / view.scale / 2;
  }

  // step finds the next (dir 1) or previous (dir -1) claimed cell after the
  // cursor in reading order, wrapping around.
  function step(dir) {
    var from = cursor ? cursor.y * SIDE + cursor.x : (dir > 0 ? -1 : 0), total = SIDE * SIDE;
    for (var n = 1; n <= total; n++) {
      var c = ((from + dir * n) % total + total) % total;
      if (!bits[c >> 3]) { // skip an empty byte at once
        if (dir > 0) n += 7 - (c & 7); else n += c & 7;
        continue;
      }
      if (bits[c >> 3] & (0x80 >> (c & 7))) return { x: c % SIDE, y: Math.floor(c / SIDE) };
    }
    return cursor;
  }

  function moveTo(c) {
    if (!c) return;
    cursor = { x: Math.max(0, Math.min(SIDE - 1, c.x)), y: Math.max(0, Math.min(SIDE - 1, c.y)) };
    keep();
    draw();
    describe(cursor.x, cursor.y, true);
  }

  canvas.addEventListener("keydown", function (e) {
    var d = e.shiftKey ? 10 : 1, keys = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (keys[e.key]) {
      var k = keys[e.key], at = cursor || { x: 0, y: 0 };
      if (e.altKey) pan(k[0] * 40, k[1] * 40); else moveTo({ x: at.x + k[0] * d, y: at.y + k[1] * d });
    } else if (e.key === "n" || e.key === "p") {
      if (bits) moveTo(step(e.key === "n" ? 1 : -1));
    } else if (e.key === "+" || e.key === "=") {
      zoom(1.5, cursor ? screenOf(cursor.x, cursor.y) : null);
    } else if (e.key === "-") {
      zoom(1 / 1.5, cursor ? screenOf(cursor.x, cursor.y) : null);
    } else {
      return;
    }
    e.preventDefault();
  });
  canvas.addEventListener("focus", function () { if (!cursor && bits) moveTo({ x: 0, y: 0 }); });

  var drag = null;
  canvas.addEventListener("pointerdown", function (e) { drag = { x: e.offsetX, y: e.offsetY }; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener("pointerup", function () { drag = null; });
  canvas.addEventListener("pointerleave", function () { if (!drag) tip.hidden = true; });
  canvas.addEventListener("pointermove", function (e) {
    if (drag) {
      pan(drag.x - e.offsetX, drag.y - e.offsetY);
      drag = { x: e.offsetX, y: e.offsetY };
      return;
    }
    var c = cellAt(e.offsetX, e.offsetY);
    describe(c.x, c.y, false);
  });
  canvas.addEventListener("wheel", function (e) {
    e.preventDefault();
    zoom(e.deltaY < 0 ? 1.25 : 0.8, { x: e.offsetX, y: e.offsetY });
  }, { passive: false });
  root.querySelector("[data-zoom=in]").addEventListener("click", function () { zoom(1.5); });
  root.querySelector("[data-zoom=out]").addEventListener("click", function () { zoom(1 / 1.5); });
  root.querySelector("[data-zoom=fit]").addEventListener("click", function () { if (bits) { fit(paint().box); draw(); } });
  window.addEventListener("resize", function () { if (bits) draw(); });

  window.sharedWorldMap = { refresh: load, screenOf: screenOf };
  load();
})();
