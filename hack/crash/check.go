package crash

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"sharedworld.dev/pkg/client"
)

// Count is what the world shows of one kind of write.
type Count struct {
	Kind    string
	Acked   int // acknowledged by the world (201, or 409 for a repeated registration)
	Unknown int // answer lost in a crash
	Stored  int // in the owning service
	// Counter is the bulletin's counter of the kind (population,
	// open_tickets, garden files).
	Counter int
	// Feed is how many distinct items of the kind the feed holds; FeedDup
	// how many items repeat one already counted.
	Feed, FeedDup int
	// Lost are acknowledged ids the service does not hold; Unprojected
	// stored ids the feed lacks; Foreign feed ids no stored write explains.
	Lost, Unprojected, Foreign []string
	// Stuck are agents told 409 on a repeated registration that are not
	// citizens: identity kept the first attempt half done (reported, not
	// judged here: it is no event lost on the way to a projection).
	Stuck []string
}

// OK reports whether nothing acknowledged was lost and every projection
// shows exactly what is stored, once. The garden counter too: it is the
// commons' file count that plots-storage puts in each garden event, taken
// from its quota record; a reservation a crash cut off before its file is
// settled at the next start, so the count equals the garden files stored.
func (c Count) OK() bool {
	return len(c.Lost) == 0 && len(c.Unprojected) == 0 && len(c.Foreign) == 0 && c.FeedDup == 0 && c.Counter == c.Stored
}

func (c Count) String() string {
	s := fmt.Sprintf("%-8s acknowledged %5d  unknown %3d  stored %5d  bulletin %5d  feed %5d  feed doubled %d",
		c.Kind, c.Acked, c.Unknown, c.Stored, c.Counter, c.Feed, c.FeedDup)
	for _, l := range []struct {
		name string
		ids  []string
	}{{"lost", c.Lost}, {"not in feed", c.Unprojected}, {"feed without write", c.Foreign}, {"told 409 but not registered", c.Stuck}} {
		if len(l.ids) > 0 {
			s += fmt.Sprintf("  %s %d (e.g. %s)", l.name, len(l.ids), l.ids[0])
		}
	}
	return s
}

// Observe reads, for every kind, what the world at base stores and what its
// bulletin shows, against what the load was told.
func (l *Load) Observe(ctx context.Context, base string) ([]Count, error) {
	r := reader{ctx: ctx, base: base}
	counters, err := r.counters()
	if err != nil {
		return nil, err
	}

	stored := map[string][]string{}
	for id, h := range l.Agents() {
		me, err := r.get("/api/world/whoami", h)
		if err != nil {
			return nil, err
		}
		if me["registered"] == true {
			stored[KindCitizen] = append(stored[KindCitizen], id)
		}
	}
	if stored[KindTicket], err = r.tickets(l.plan.Tag); err != nil {
		return nil, err
	}
	if stored[KindGarden], err = r.garden(l.Identity(), l.plan.Tag); err != nil {
		return nil, err
	}
	feed := map[string]map[string]int{}
	for _, kind := range []string{KindCitizen, KindTicket, KindGarden} {
		if feed[kind], err = r.feed(kind); err != nil {
			return nil, err
		}
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Count
	for _, kind := range []string{KindCitizen, KindTicket, KindGarden} {
		c := Count{Kind: kind, Acked: len(l.Acked[kind]), Unknown: l.Unknown[kind], Stored: len(stored[kind]), Counter: counters[kind] - l.baseline[kind]}
		have := map[string]bool{}
		for _, id := range stored[kind] {
			have[id] = true
			n := feed[kind][id]
			if n == 0 {
				c.Unprojected = append(c.Unprojected, id)
			}
		}
		for id := range l.Acked[kind] {
			if !have[id] {
				c.Lost = append(c.Lost, id)
			}
		}
		for id, n := range feed[kind] {
			if !have[id] {
				c.Foreign = append(c.Foreign, id)
				continue
			}
			c.Feed++
			c.FeedDup += n - 1
		}
		if kind == KindCitizen {
			for id := range l.Conflicts {
				if !have[id] {
					c.Stuck = append(c.Stuck, id)
				}
			}
		}
		slices.Sort(c.Stuck)
		slices.Sort(c.Lost)
		slices.Sort(c.Unprojected)
		slices.Sort(c.Foreign)
		out = append(out, c)
	}
	return out, nil
}

// Converge observes until every kind is OK or the deadline passes, and
// returns the last observation.
func (l *Load) Converge(ctx context.Context, base string, within time.Duration) ([]Count, bool, error) {
	deadline := time.Now().Add(within)
	for {
		counts, err := l.Observe(ctx, base)
		if err != nil {
			return nil, false, err
		}
		ok := true
		for _, c := range counts {
			ok = ok && c.OK()
		}
		if ok || time.Now().After(deadline) {
			return counts, ok, nil
		}
		select {
		case <-ctx.Done():
			return counts, false, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Baseline notes the bulletin's counters before the load (the world is
// founded with a garden index file): Counter is measured from there.
func (l *Load) Baseline(ctx context.Context, base string) error {
	counters, err := reader{ctx: ctx, base: base}.counters()
	l.baseline = counters
	return err
}

// counters reads the bulletin's population, open_tickets and garden files.
func (r reader) counters() (map[string]int, error) {
	doc, err := r.get("/api/world/bulletin", nil)
	if err != nil {
		return nil, err
	}
	world, _ := doc["world"].(map[string]any)
	feedback, _ := doc["feedback"].(map[string]any)
	garden, _ := doc["garden"].(map[string]any)
	return map[string]int{KindCitizen: num(world["population"]), KindTicket: num(feedback["open_tickets"]), KindGarden: num(garden["files"])}, nil
}

type reader struct {
	ctx  context.Context
	base string
}

func (r reader) get(path string, id *client.Identity) (map[string]any, error) {
	status, body, err := exchange(r.ctx, r.base, http.MethodGet, path, id, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %v", path, status, body)
	}
	return body, nil
}

// pages follows pagination.next through a list and hands each item to f.
func (r reader) pages(path, field string, f func(item map[string]any)) error {
	cursor := ""
	for {
		p := path + "&limit=100"
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		body, err := r.get(p, nil)
		if err != nil {
			return err
		}
		items, _ := body[field].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			f(m)
		}
		page, _ := body["pagination"].(map[string]any)
		next, _ := page["next"].(string)
		if next == "" || len(items) == 0 {
			return nil
		}
		cursor = next
	}
}

// tickets lists the stored tickets the load filed.
func (r reader) tickets(tag string) ([]string, error) {
	var ids []string
	err := r.pages("/api/world/tickets?status=open", "tickets", func(t map[string]any) {
		if title, _ := t["title"].(string); strings.HasPrefix(title, "Crash"+tag) {
			ids = append(ids, t["ticket_id"].(string))
		}
	})
	return ids, err
}

// garden lists the stored garden files the load planted.
func (r reader) garden(id *client.Identity, tag string) ([]string, error) {
	if id == nil {
		return nil, nil
	}
	body, err := r.get("/api/world/storage/list?plot_id=plot_0_0&prefix="+url.QueryEscape("/garden/Crash"+tag), id)
	if err != nil {
		return nil, err
	}
	var paths []string
	files, _ := body["files"].([]any)
	for _, f := range files {
		m, _ := f.(map[string]any)
		paths = append(paths, m["path"].(string))
	}
	return paths, nil
}

// feed counts the feed's items of a kind by id (agent id, ticket id,
// garden path); a garden item counts only as a planting.
func (r reader) feed(kind string) (map[string]int, error) {
	typ := map[string]string{KindCitizen: "citizen", KindTicket: "ticket", KindGarden: "garden"}[kind]
	seen := map[string]int{}
	err := r.pages("/api/world/events?type="+typ, "events", func(it map[string]any) {
		id, _ := it["id"].(string)
		line, _ := it["line"].(string)
		if kind == KindGarden && !strings.Contains(line, "  planted  ") {
			return
		}
		seen[id]++
	})
	return seen, err
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}
