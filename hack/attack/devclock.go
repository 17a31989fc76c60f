package attack

import (
	"net/http"
	"time"
)

// DevClock checks that the development clock refuses advances
// that overflow or go beyond its bound (400 with a hint), and is the
// ambassador's alone. It returns the world's time after a small advance,
// for KeptClock to compare after a restart (zero when the world has no
// development clock).
func DevClock(w *World, cat *Category) time.Time {
	probe := w.JSON(cat, "POST", "/api/admin/clock", map[string]any{}, w.Admin())
	if probe.Status == http.StatusNotFound || probe.Status == http.StatusMethodNotAllowed {
		cat.Note("the world runs without the development clock (WORLD_DEV_CLOCK)")
		return time.Time{}
	}
	for _, adv := range []string{"9223372036854775807ns", "2562047h", "87601h", "-1h", "1e9h", "", "1h\xff"} {
		r := w.JSON(cat, "POST", "/api/admin/clock", map[string]any{"advance": adv}, w.Admin())
		cat.Refused(r, "advance "+adv, 400, "")
	}
	cat.Refused(w.Send(cat, "POST", "/api/admin/clock", []byte(`{"advance":9223372036854775807}`), w.Admin()), "advance as a number", 400, "")
	cat.Refused(w.JSON(cat, "POST", "/api/admin/clock", map[string]any{"advance": "1h"}, nil), "the clock without the token", 401, "")
	r := w.JSON(cat, "POST", "/api/admin/clock", map[string]any{"advance": "1h"}, w.Admin())
	if !cat.Want(r, "a small advance", 200) {
		return time.Time{}
	}
	now, err := time.Parse(time.RFC3339Nano, r.Str("now"))
	if err != nil || now.Before(time.Now().Add(59*time.Minute)) {
		cat.Flag(r, "the world's time after an advance of 1h is %q", r.Str("now"))
	}
	return now
}

// KeptClock checks that a restart kept the development clock's offset: the
// world's time is not behind what it was before.
func KeptClock(w *World, cat *Category, before time.Time, life string) {
	if before.IsZero() {
		return
	}
	r := w.JSON(cat, "POST", "/api/admin/clock", map[string]any{"advance": "0s"}, w.Admin())
	if !cat.Want(r, "the world's time after "+life, 200) {
		return
	}
	now, err := time.Parse(time.RFC3339Nano, r.Str("now"))
	if err != nil || now.Before(before) {
		cat.Flag(r, "after %s the world's time went back from %s", life, before.Format(time.RFC3339))
	}
}
