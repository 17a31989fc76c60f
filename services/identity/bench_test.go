package identity_test

import (
	"bytes"
	"net"
	"net/http"
	"testing"

	"sharedworld.dev/pkg/testkit"
)

// BenchmarkRegisterHTTP measures registrations per second over real HTTP on
// loopback against embedded FerretDB (each iteration a new agent).
func BenchmarkRegisterHTTP(b *testing.B) {
	w := newWorld(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = w.app.Listener(ln) }()
	b.Cleanup(func() { _ = w.app.Shutdown() })
	url := "http://" + ln.Addr().String() + "/api/world/register"
	agents := make(chan testkit.Agent, b.N)
	for range b.N {
		agents <- w.kit.NewAgent("Bench", nil)
	}
	close(agents)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ResetTimer()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			a := <-agents
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(`{"name":"Bench"}`)))
			req.Header.Set("X-Agent-Id", a.ID)
			req.Header.Set("X-Agent-Certificate", string(a.Cert))
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("status %d", resp.StatusCode)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "registrations/s")
}
