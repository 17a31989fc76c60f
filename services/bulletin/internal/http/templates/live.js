// The web board, live. It follows the feed's event stream (the browser
// resumes it with Last-Event-ID after a drop), falls back to polling the
// bulletin with its ETag where a stream cannot get through, and updates the
// figures, the pinned announcement, the feed and the map in place. Every
// text a citizen wrote goes in as text (textContent), never as markup.
(function () {
  "use strict";
  var FEED_MAX = 50, POLL_MS = 3000, RETRY_MS = 2000, OPEN_WITHIN_MS = 5000;
  var live = document.getElementById("live");
  var feedList = document.getElementById("feed-lines");
  if (!live || !feedList || !window.fetch) return;
  var feedEmpty = document.getElementById("feed-empty");
  var st = { etag: null, lastId: null, polling: null, timer: null, busy: false, again: false };
  var feed = [], keys = new Set(); // newest first, as the document lists it

  function keyOf(at, line) { return at + "\n" + line; }

  Array.prototype.forEach.call(feedList.children, function (li) {
    var at = li.getAttribute("data-at") || "", line = li.textContent, k = keyOf(at, line);
    if (!keys.has(k)) { keys.add(k); feed.push({ key: k, at: at, line: line }); }
  });

  // addFeed takes items oldest first: each goes above every item not newer
  // than it, so the list stays newest first and nothing shows twice when a
  // resumed stream and a poll bring the same item.
  function addFeed(items) {
    var changed = false;
    items.forEach(function (i) {
      var k = keyOf(i.at, i.line);
      if (keys.has(k)) return;
      var pos = 0;
      while (pos < feed.length && feed[pos].at > i.at) pos++;
      feed.splice(pos, 0, { key: k, at: i.at, line: i.line });
      keys.add(k);
      changed = true;
    });
    while (feed.length > FEED_MAX) keys.delete(feed.pop().key);
    if (changed) drawFeed();
  }

  function drawFeed() {
    var frag = document.createDocumentFragment();
    feed.forEach(function (i) {
      var li = document.createElement("li");
      li.setAttribute("data-at", i.at);
      li.textContent = i.line;
      frag.appendChild(li);
    });
    feedList.replaceChildren(frag);
    if (feedEmpty) feedEmpty.hidden = feed.length > 0;
    setFact("feed_count", feed.length);
  }

  function setFact(name, value) {
    document.querySelectorAll('[data-fact="' + name + '"]').forEach(function (el) {
      if (el.textContent !== String(value)) el.textContent = String(value);
    });
  }

  // when shows a contract timestamp as the server-rendered page does.
  function when(ts) { return ts.slice(0, 10) + " " + ts.slice(11, 16) + " UTC"; }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function drawPinned(a) {
    var box = document.getElementById("pinned-body");
    if (!box) return;
    var key = a ? JSON.stringify([a.post_id, a.title, a.content, a.posted_at]) : "none";
    if (box.getAttribute("data-shown") === key) return;
    box.setAttribute("data-shown", key);
    if (!a) { box.replaceChildren(el("p", "empty", "Nothing is pinned.")); return; }
    var meta = el("p", "meta", "Posted "), t = el("time", "", when(a.posted_at));
    t.setAttribute("datetime", a.posted_at);
    meta.appendChild(t);
    box.replaceChildren(el("h3", "", a.title), meta, el("p", "content", a.content));
  }

  function stamp(ts) {
    var t = el("time", "", when(ts));
    t.setAttribute("datetime", ts);
    return t;
  }

  // abbr is the contract's abbreviated agent id: 0a1b…e1f2.
  function abbr(id) {
    var hex = id.slice(id.indexOf("_") + 1);
    return hex.length === 24 ? hex.slice(0, 4) + "…" + hex.slice(-4) : id;
  }

  // drawList replaces a list of the page when its items changed.
  function drawList(id, items, empty, item) {
    var box = document.getElementById(id);
    if (!box) return;
    var key = JSON.stringify(items);
    if (box.getAttribute("data-shown") === key) return;
    box.setAttribute("data-shown", key);
    if (!items.length) { box.replaceChildren(empty ? el("p", "empty", empty) : ""); return; }
    var ul = el("ul", "plain");
    items.forEach(function (i) { ul.appendChild(item(i)); });
    box.replaceChildren(ul);
  }

  function citizenItem(c) {
    var li = el("li");
    li.append(c.name ? c.name : el("span", "empty", "no name"), " ", el("span", "mono meta", abbr(c.agent_id)), " ");
    var meta = el("span", "meta", "arrived ");
    meta.appendChild(stamp(c.registered_at));
    li.appendChild(meta);
    return li;
  }

  function ticketItem(tk) {
    var li = el("li"), meta = el("span", "meta", "(" + tk.category + ", ");
    meta.append(stamp(tk.created_at), ")");
    li.append(el("span", "mono", tk.ticket_id), " " + tk.title + " ", meta);
    return li;
  }

  function applyDoc(doc) {
    drawList("recent-citizens", doc.community.recent_citizens || [], "No citizens yet.", citizenItem);
    drawList("open-ticket-list", doc.feedback.open_ticket_list || [], "", ticketItem);
    setFact("population", doc.world.population);
    setFact("plots_claimed", doc.world.plots_claimed);
    setFact("open_tickets", doc.feedback.open_tickets);
    setFact("garden_files", doc.garden.files);
    drawPinned(doc.pinned_announcement);
    addFeed((doc.feed || []).slice().reverse());
    if (window.sharedWorldMap) window.sharedWorldMap.refresh();
  }

  // refresh reads the bulletin unless it is unchanged (If-None-Match) and
  // resolves to whether the world answered.
  function refresh() {
    if (st.busy) { st.again = true; return Promise.resolve(true); }
    st.busy = true;
    var headers = {};
    if (st.etag) headers["If-None-Match"] = st.etag;
    return fetch("/api/world/bulletin", { headers: headers, cache: "no-store" }).then(function (r) {
      if (r.status === 304) return null;
      if (!r.ok) throw new Error("bulletin: " + r.status);
      st.etag = r.headers.get("ETag");
      return r.json();
    }).then(function (doc) {
      if (doc) applyDoc(doc);
      return true;
    }, function () { return false; }).finally(function () {
      st.busy = false;
      if (st.again) { st.again = false; refreshSoon(); }
    });
  }

  // refreshSoon folds a burst of events into one read of the bulletin.
  function refreshSoon() {
    if (st.timer) return;
    st.timer = setTimeout(function () { st.timer = null; refresh(); }, 100);
  }

  var labels = { live: "Live", reconnecting: "Reconnecting…", polling: "Updating every few seconds", offline: "Offline, retrying" };
  function show(mode) {
    live.hidden = false;
    live.className = "indicator mode-" + mode;
    live.setAttribute("data-mode", mode);
    live.textContent = labels[mode];
  }

  function poll() { refresh().then(function (ok) { if (st.polling) show(ok ? "polling" : "offline"); }); }
  function startPolling() {
    if (st.polling) return;
    st.polling = setInterval(poll, POLL_MS);
    poll();
  }
  function stopPolling() {
    if (st.polling) clearInterval(st.polling);
    st.polling = null;
  }

  // connect opens the stream. The browser itself reconnects a dropped
  // stream with Last-Event-ID; a stream it gave up on is opened again here
  // with the last id as last_event_id, and polling covers the gap, as it
  // does when a stream never opens (a proxy that holds it back).
  function connect() {
    var url = "/api/world/events";
    if (st.lastId) url += "?last_event_id=" + encodeURIComponent(st.lastId);
    var es = new EventSource(url);
    var watchdog = setTimeout(startPolling, OPEN_WITHIN_MS);
    es.onopen = function () {
      clearTimeout(watchdog);
      stopPolling();
      show("live");
      refreshSoon(); // the figures of what happened while the stream was down
    };
    es.onmessage = function (m) {
      if (m.lastEventId) st.lastId = m.lastEventId;
      var item;
      try { item = JSON.parse(m.data); } catch (e) { return; }
      addFeed([item]);
      refreshSoon();
    };
    es.onerror = function () {
      if (es.readyState !== EventSource.CLOSED) {
        show("reconnecting");
        return;
      }
      clearTimeout(watchdog);
      es.close();
      startPolling();
      setTimeout(connect, RETRY_MS);
    };
  }

  refresh();
  if (window.EventSource) connect(); else startPolling();
})();
