package identity_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"sharedworld.dev/services/identity/internal/domain"
)

// directoryWorld is the directory: this many visible citizens,
// each with the bio and two interests hack/cmd/seedworld gives it (one in
// ten a gardener, the interests cycling through eight).
const directoryWorld = 10_000

var seedInterests = []string{"gardening", "music", "maps", "poetry", "weather", "trade", "history", "games"}

// BenchmarkDirectory answers the directory's rows of the embedded
// benchmark (hack/bench/embedded.sh) over directoryWorld citizens written
// through the store: "query" is the store's answer alone, "handler" the
// whole request through the service's router (middleware and encoding).
func BenchmarkDirectory(b *testing.B) {
	w := newWorld(b)
	ctx := w.kit.Ctx()
	s := citizenStore(w.kit.DB)
	now := time.Now()
	for i := range directoryWorld {
		role := "tinkerer"
		if i%10 == 0 {
			role = "gardener"
		}
		id := fmt.Sprintf("agent_bench_%05d", i)
		p := domain.Profile{Name: fmt.Sprintf("Seed%05d", i), Bio: "seeded", DirectoryVisible: true,
			DirectoryBio: fmt.Sprintf("A %s of the seeded world, number %d.", role, i),
			Interests:    []string{seedInterests[i%len(seedInterests)], seedInterests[(i/len(seedInterests))%len(seedInterests)]}}
		if err := s.Claim(ctx, domain.NewPending(id, p, now)); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Change(ctx, id, func(c *domain.Citizen) (domain.Event, error) { return c.Activate(int64(i + 1)) }); err != nil {
			b.Fatal(err)
		}
	}
	rows := []struct {
		name  string
		query domain.DirectoryQuery
		path  string
	}{
		{"search=gardener", domain.DirectoryQuery{Search: "gardener", Limit: 50}, "/api/world/directory?search=gardener"},
		{"interest=music", domain.DirectoryQuery{Interest: "music", Limit: 50}, "/api/world/directory?interest=music"},
		{"all", domain.DirectoryQuery{Limit: 50}, "/api/world/directory"},
		{"search=gardener&interest=music&offset=100", domain.DirectoryQuery{Search: "gardener", Interest: "music", Limit: 50, Offset: 100},
			"/api/world/directory?search=gardener&interest=music&offset=100"},
	}
	for _, row := range rows {
		b.Run("query/"+row.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, total, err := s.Directory(ctx, row.query); err != nil || total == 0 {
					b.Fatalf("total %d, %v", total, err)
				}
			}
		})
		b.Run("handler/"+row.name, func(b *testing.B) {
			h := w.app.Handler()
			var rc fasthttp.RequestCtx
			b.ReportAllocs()
			for b.Loop() {
				// a fresh request: the user values hold the previous
				// request's context, which the next would derive from
				rc.ResetUserValues()
				rc.Request.Reset()
				rc.Response.Reset()
				rc.Request.SetRequestURI(row.path)
				rc.Request.Header.SetMethod(fasthttp.MethodGet)
				h(&rc)
				if rc.Response.StatusCode() != fasthttp.StatusOK {
					b.Fatalf("status %d: %s", rc.Response.StatusCode(), rc.Response.Body())
				}
			}
		})
	}
}
