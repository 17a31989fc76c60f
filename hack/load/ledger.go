package load

import (
	"strings"
	"sync"
)

// Ledger holds every write the world acknowledged, and what agents may act
// on next (tickets to upvote, proposals to vote on, messages to read).
type Ledger struct {
	mu sync.Mutex
	// Per feed type, the acknowledged writes by feed key (type, id, verb).
	feed map[string]map[string]int
	// Counters of acknowledged writes the feed does not show.
	Citizens, Claims, Tickets, Planted, Votes, Proposals int
	Upvotes                                              map[string]int // ticket → acknowledged upvotes
	Sent                                                 map[string]int // agent → messages acknowledged
	Files                                                map[string]map[string]bool
	Posts                                                map[string]map[string]bool // channel → post ids

	// Unanswered counts writes whose answer never came (a client timeout)
	// by feed type and verb ("citizen", "gardenplanted", ...): the world
	// may have stored them or not.
	Unanswered map[string]int
	// unanswered: feed keys of writes whose answer never came.
	unanswered map[string]int
	citizens   []*citizen
	tickets    []ticketRef
	proposals  []string
	agents     []string
	inbox      map[string][]string // agent → message ids sent to it
}

type ticketRef struct{ id, by string }

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{feed: map[string]map[string]int{}, Upvotes: map[string]int{}, Sent: map[string]int{},
		Files: map[string]map[string]bool{}, Posts: map[string]map[string]bool{}, inbox: map[string][]string{},
		unanswered: map[string]int{}, Unanswered: map[string]int{}}
}

func (l *Ledger) with(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

// fed notes an acknowledged write the feed shows as key.
func (l *Ledger) fed(typ, key string) {
	if l.feed[typ] == nil {
		l.feed[typ] = map[string]int{}
	}
	l.feed[typ][key]++
}

// FeedTypes are the feed types of the writes the mix makes.
var FeedTypes = []string{"citizen", "claim", "ticket", "garden", "proposal", "vote"}

// feedItemKey is the key of a feed item: its type and id, and for the
// types where one id has several items the verb that tells them apart.
func feedItemKey(typ, id, line string) string {
	verb := ""
	switch typ {
	case "garden":
		verb = wordAfter(line, []string{"planted", "tended"})
	case "proposal":
		verb = wordAfter(line, []string{"proposed"})
	}
	return id + " " + verb
}

func wordAfter(line string, verbs []string) string {
	for _, v := range verbs {
		if strings.Contains(line, "  "+v+"  ") || strings.HasSuffix(line, "  "+v) {
			return v
		}
	}
	return "other"
}
