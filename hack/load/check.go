package load

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Check is the end-of-run comparison of what the world acknowledged with
// what its services and its bulletin show.
type Check struct {
	Lines []string
	OK    bool
}

func (c *Check) add(ok bool, format string, args ...any) {
	mark := "ok  "
	if !ok {
		mark = "FAIL"
		c.OK = false
	}
	c.Lines = append(c.Lines, mark+"  "+fmt.Sprintf(format, args...))
}

// baseline is what the world held before the run.
type baseline struct {
	population, plots, openTickets, gardenFiles, serviceOpen, gardenStored int
	// garden holds the garden feed's items by key: every citizen may tend
	// /garden/index.md, so earlier runs' tendings share the run's key.
	garden map[string]int
	// index: whether /garden/index.md existed (the first tending of a
	// new world creates it, one more garden file than the plantings).
	index bool
}

const indexTended = "/garden/index.md tended"

// counters reads the bulletin's counters and the services' own counts.
func counters(ctx context.Context, c *Client) (baseline, error) {
	var b baseline
	doc := c.Do(ctx, nil, "", http.MethodGet, "/api/world/bulletin", nil)
	if doc.Status != http.StatusOK {
		return b, fmt.Errorf("GET /api/world/bulletin: %d %v", doc.Status, doc.Err) //nolint:errorlint // the error may be nil (an answer with a status): printed, not wrapped
	}
	world, _ := doc.Body["world"].(map[string]any)
	feedback, _ := doc.Body["feedback"].(map[string]any)
	garden, _ := doc.Body["garden"].(map[string]any)
	b.population, b.plots = num(world["population"]), num(world["plots_claimed"])
	b.openTickets, b.gardenFiles = num(feedback["open_tickets"]), num(garden["files"])
	t := c.Do(ctx, nil, "", http.MethodGet, "/api/world/tickets?limit=1", nil)
	counts, _ := t.Body["counts"].(map[string]any)
	b.serviceOpen = num(counts["open"])
	g := c.Do(ctx, nil, "", http.MethodGet, "/api/world/storage/list?plot_id=plot_0_0&prefix="+url.QueryEscape("/garden/"), nil)
	if t.Status != http.StatusOK || g.Status != http.StatusOK {
		return b, fmt.Errorf("read the services' counts: tickets %d, garden %d", t.Status, g.Status)
	}
	b.gardenStored = num(g.Body["total"])
	i := c.Do(ctx, nil, "", http.MethodGet, "/api/world/storage/list?plot_id=plot_0_0&prefix="+url.QueryEscape("/garden/index.md"), nil)
	b.index = num(i.Body["total"]) > 0
	return b, nil
}

// Verify compares, until they agree or within settle, the acknowledged
// writes with the feed (each exactly once), the bulletin's counters and
// the owning services' lists.
func Verify(ctx context.Context, c *Client, l *Ledger, base baseline, settle time.Duration) (*Check, error) {
	deadline := time.Now().Add(settle)
	for {
		chk, err := verifyOnce(ctx, c, l, base)
		if err != nil || chk.OK || time.Now().After(deadline) {
			return chk, err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func verifyOnce(ctx context.Context, c *Client, l *Ledger, base baseline) (*Check, error) {
	chk := &Check{OK: true}
	l.mu.Lock()
	defer l.mu.Unlock()

	for _, typ := range FeedTypes {
		feed, err := feedKeys(ctx, c, typ)
		if err != nil {
			return nil, err
		}
		acked, missing, doubled, unanswered := 0, 0, 0, 0
		for key, n := range l.feed[typ] {
			acked += n
			f := feed[key]
			if typ == "garden" {
				f -= base.garden[key]
			}
			switch {
			case f < n:
				missing += n - f
			case f > n:
				// A write whose answer was lost (a client timeout) may be
				// stored: not a double.
				u := min(f-n, l.unanswered[key])
				unanswered += u
				doubled += f - n - u
			}
		}
		for key, u := range l.unanswered { // plantings never answered
			if _, acked := l.feed[typ][key]; !acked && typ == "garden" {
				unanswered += min(u, feed[key]-base.garden[key])
			}
		}
		chk.add(missing == 0 && doubled == 0, "feed %-9s acknowledged %6d  in feed %6d  missing %d  doubled %d  stored without an answer %d",
			typ, acked, acked-missing+doubled+unanswered, missing, doubled, unanswered)
	}

	now, err := counters(ctx, c)
	if err != nil {
		return nil, err
	}
	planted := l.Planted
	if !base.index && l.feed["garden"][indexTended] > 0 {
		planted++ // the first tending made the index file
	}
	u := l.Unanswered
	for _, k := range []struct {
		what                     string
		acked, unanswered, shown int
	}{
		{"bulletin world.population", l.Citizens, u["citizen"], now.population - base.population},
		{"bulletin world.plots_claimed", l.Claims, u["claim"], now.plots - base.plots},
		{"bulletin feedback.open_tickets", l.Tickets, u["ticket"], now.openTickets - base.openTickets},
		{"tickets service counts.open", l.Tickets, u["ticket"], now.serviceOpen - base.serviceOpen},
		{"bulletin garden.files", planted, u["gardenplanted"], now.gardenFiles - base.gardenFiles},
		{"plots-storage garden files", planted, u["gardenplanted"], now.gardenStored - base.gardenStored},
	} {
		// Writes without an answer may or may not be stored; the rest must be.
		chk.add(k.shown >= k.acked && k.shown <= k.acked+k.unanswered, "%-34s acknowledged %6d  shown %6d  unanswered %d",
			k.what, k.acked, k.shown, k.unanswered)
	}

	votes, proposals, err := governance(ctx, c, l)
	if err != nil {
		return nil, err
	}
	chk.add(proposals == l.Proposals && votes == l.Votes, "%-34s acknowledged %6d proposals, %6d votes  counted %6d, %6d",
		"governance results", l.Proposals, l.Votes, proposals, votes)

	upvotes, want, err := ticketUpvotes(ctx, c, l)
	if err != nil {
		return nil, err
	}
	chk.add(upvotes == want, "%-34s acknowledged %6d  counted %6d", "tickets upvotes", want, upvotes)

	sent, files, err := perAgent(ctx, c, l)
	if err != nil {
		return nil, err
	}
	wantSent, wantFiles := 0, 0
	for _, n := range l.Sent {
		wantSent += n
	}
	for _, f := range l.Files {
		wantFiles += len(f)
	}
	chk.add(sent == wantSent, "%-34s acknowledged %6d  listed %6d", "messaging sent boxes", wantSent, sent)
	chk.add(files == wantFiles, "%-34s acknowledged %6d  listed %6d", "plots-storage plot files", wantFiles, files)

	posts, wantPosts, err := commonsPosts(ctx, c, l)
	if err != nil {
		return nil, err
	}
	chk.add(posts == wantPosts, "%-34s acknowledged %6d  listed %6d", "messaging commons posts", wantPosts, posts)
	return chk, nil
}

// pages follows pagination.next through a list.
func pages(ctx context.Context, c *Client, a *Agent, path, field string, f func(map[string]any)) error {
	cursor := ""
	for {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		p := path + sep + "limit=100"
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		ans := c.Do(ctx, a, "", http.MethodGet, p, nil)
		if ans.Status != http.StatusOK {
			return fmt.Errorf("GET %s: %d %v %v", p, ans.Status, ans.Err, ans.Body) //nolint:errorlint // the error may be nil (an answer with a status): printed, not wrapped
		}
		items, _ := ans.Body[field].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			f(m)
		}
		next := str(ans.Body, "pagination", "next")
		if next == "" || len(items) == 0 {
			return nil
		}
		cursor = next
	}
}

// feedKeys counts the feed's items of typ by key.
func feedKeys(ctx context.Context, c *Client, typ string) (map[string]int, error) {
	out := map[string]int{}
	err := pages(ctx, c, nil, "/api/world/events?type="+typ, "events", func(it map[string]any) {
		id, _ := it["id"].(string)
		line, _ := it["line"].(string)
		out[feedItemKey(typ, id, line)]++
	})
	return out, err
}

// governance sums the ballots and counts the proposals of the run.
func governance(ctx context.Context, c *Client, l *Ledger) (votes, proposals int, err error) {
	ans := c.Do(ctx, nil, "", http.MethodGet, "/api/world/governance/results", nil)
	if ans.Status != http.StatusOK {
		return 0, 0, fmt.Errorf("GET /api/world/governance/results: %d %v", ans.Status, ans.Err) //nolint:errorlint // the error may be nil (an answer with a status): printed, not wrapped
	}
	ours := map[string]bool{}
	for _, id := range l.proposals {
		ours[id] = true
	}
	list, _ := ans.Body["proposals"].([]any)
	for _, it := range list {
		p, _ := it.(map[string]any)
		if id, _ := p["proposal_id"].(string); ours[id] {
			proposals++
			votes += num(p["votes_for"]) + num(p["votes_against"]) + num(p["votes_abstain"])
		}
	}
	return votes, proposals, nil
}

// ticketUpvotes sums the upvotes of the run's tickets.
func ticketUpvotes(ctx context.Context, c *Client, l *Ledger) (got, want int, err error) {
	for _, n := range l.Upvotes {
		want += n
	}
	ours := map[string]bool{}
	for _, t := range l.tickets {
		ours[t.id] = true
	}
	err = pages(ctx, c, nil, "/api/world/tickets?status=open", "tickets", func(t map[string]any) {
		if id, _ := t["ticket_id"].(string); ours[id] {
			got += num(t["upvotes"])
		}
	})
	return got, want, err
}

// perAgent counts each agent's sent messages and plot files as the
// services list them.
func perAgent(ctx context.Context, c *Client, l *Ledger) (sent, files int, err error) {
	for _, cz := range l.citizens {
		ans := c.Do(ctx, cz.Agent, "", http.MethodGet, "/api/world/messages?box=sent&limit=1", nil)
		if ans.Status != http.StatusOK {
			return 0, 0, fmt.Errorf("GET /api/world/messages?box=sent: %d %v", ans.Status, ans.Err) //nolint:errorlint // the error may be nil (an answer with a status): printed, not wrapped
		}
		sent += num(ans.Body["pagination"].(map[string]any)["total"])
		if cz.plot == "" {
			continue
		}
		ans = c.Do(ctx, cz.Agent, "", http.MethodGet, "/api/world/storage/list?plot_id="+cz.plot+"&prefix="+url.QueryEscape("/notes/"), nil)
		if ans.Status != http.StatusOK {
			return 0, 0, fmt.Errorf("GET /api/world/storage/list: %d %v", ans.Status, ans.Err) //nolint:errorlint // the error may be nil (an answer with a status): printed, not wrapped
		}
		files += num(ans.Body["total"])
	}
	return sent, files, nil
}

// commonsPosts counts the run's posts the commons channels list.
func commonsPosts(ctx context.Context, c *Client, l *Ledger) (got, want int, err error) {
	for channel, ids := range l.Posts {
		want += len(ids)
		err := pages(ctx, c, nil, "/api/world/commons/"+channel, "posts", func(p map[string]any) {
			if id, _ := p["post_id"].(string); ids[id] {
				got++
			}
		})
		if err != nil {
			return 0, 0, err
		}
	}
	return got, want, nil
}
