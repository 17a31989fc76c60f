package bulletin_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin"
)

// benchWorld is a bulletin with every event type applied, served on a socket.
func benchWorld(b *testing.B) (*world, string) {
	b.Helper()
	kit := testkit.New(b)
	w := &world{kit: kit, deps: kit.Deps(nil)}
	svc, err := bulletin.New(kit.Ctx(), w.deps, bulletin.Options{})
	if err != nil {
		b.Fatal(err)
	}
	w.svc, w.app = svc, kit.App(svc)
	kit.Run(svc)
	evs := everyEventType()
	kit.Publish(evs...)
	testkit.Eventually(b, 10*time.Second, "events applied", func() bool { return svc.Handled() >= int64(len(evs)) })
	testkit.Eventually(b, 10*time.Second, "rendered", func() bool {
		r := svc.Board().Current()
		return r != nil && bytes.Count(r.JSON, []byte(`"tag":`)) == 16
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = w.app.Listener(ln) }()
	b.Cleanup(func() { _ = w.app.ShutdownWithTimeout(time.Second) })
	return w, "http://" + ln.Addr().String()
}

// BenchmarkBulletinGET measures GET /api/world/bulletin over a real socket
// with keep-alive clients in this process.
func BenchmarkBulletinGET(b *testing.B) {
	_, base := benchWorld(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.SetParallelism(16)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Get(base + "/api/world/bulletin")
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

var wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

// wrk runs wrk (a second process) against url and returns requests/s.
func wrk(b *testing.B, url string, d time.Duration, headers ...string) float64 {
	b.Helper()
	args := []string{"-t2", "-c64", fmt.Sprintf("-d%ds", int(d.Seconds()))}
	for _, h := range headers {
		args = append(args, "-H", h)
	}
	out, err := exec.Command("wrk", append(args, url)...).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	m := wrkRate.FindSubmatch(out)
	if m == nil {
		b.Fatalf("no rate in wrk output:\n%s", out)
	}
	rate, _ := strconv.ParseFloat(string(m[1]), 64)
	return rate
}

// BenchmarkBulletinVersusNginx serves the same bulletin bytes from the
// bulletin's router and from nginx (as a static file, and its gzip form
// through gzip_static), and loads both with wrk from a separate process, one
// after the other in one run: plain, then with Accept-Encoding: gzip. Needs
// wrk and nginx on the PATH (Debian: wrk, nginx-light). Run with
// -benchtime=1x.
func BenchmarkBulletinVersusNginx(b *testing.B) {
	for _, tool := range []string{"wrk", "nginx"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Fatalf("%s is not installed; this benchmark compares against it", tool)
		}
	}
	w, base := benchWorld(b)
	rendered := w.svc.Board().Current()
	doc := rendered.JSON

	// nginx's worker may run as an unprivileged user: the directory must be
	// readable by anyone (a test temp dir is not).
	dir, err := os.MkdirTemp("", "bulletin-nginx-*")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bulletin.json"), doc, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bulletin.json.gz"), rendered.Gzip, 0o644); err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := fmt.Sprintf(`daemon off; worker_processes 1; pid %[1]s/nginx.pid; error_log %[1]s/error.log;
events { worker_connections 1024; }
http { access_log off; keepalive_requests 1000000; client_body_temp_path %[1]s; proxy_temp_path %[1]s;
  fastcgi_temp_path %[1]s; uwsgi_temp_path %[1]s; scgi_temp_path %[1]s;
  server { listen 127.0.0.1:%[2]d; root %[1]s;
    location = /bulletin.json { default_type application/json; etag on; gzip_static on; gzip_vary on;
      add_header Cache-Control "public, max-age=5"; } } }
`, dir, port)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	nginx := exec.Command("nginx", "-c", filepath.Join(dir, "nginx.conf"), "-p", dir)
	if err := nginx.Start(); err != nil {
		b.Fatal(err)
	}
	// SIGQUIT is nginx's graceful stop: the master stops its workers before
	// it exits (killing the master would leave them running).
	b.Cleanup(func() { _ = nginx.Process.Signal(syscall.SIGQUIT); _ = nginx.Wait() })
	nginxURL := fmt.Sprintf("http://127.0.0.1:%d/bulletin.json", port)
	testkit.Eventually(b, 5*time.Second, "nginx serving", func() bool {
		resp, err := http.Get(nginxURL)
		if err != nil {
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode == 200 && len(body) == len(doc)
	})

	d := 5 * time.Second
	b.ResetTimer()
	// The machine is shared, so each round measures both servers back to
	// back and the medians of the rounds are reported.
	const gz = "Accept-Encoding: gzip"
	var ours, theirs, ratio, oursGz, theirsGz, ratioGz []float64
	for range b.N {
		o, t := wrk(b, base+"/api/world/bulletin", d), wrk(b, nginxURL, d)
		og, tg := wrk(b, base+"/api/world/bulletin", d, gz), wrk(b, nginxURL, d, gz)
		ours, theirs, ratio = append(ours, o), append(theirs, t), append(ratio, o/t)
		oursGz, theirsGz, ratioGz = append(oursGz, og), append(theirsGz, tg), append(ratioGz, og/tg)
		b.Logf("round: bulletin %.0f, nginx %.0f (%.2f); gzip: bulletin %.0f, nginx %.0f (%.2f)", o, t, o/t, og, tg, og/tg)
	}
	b.ReportMetric(median(ours), "bulletin-req/s")
	b.ReportMetric(median(theirs), "nginx-req/s")
	b.ReportMetric(median(ratio), "ratio")
	b.ReportMetric(median(oursGz), "bulletin-gzip-req/s")
	b.ReportMetric(median(theirsGz), "nginx-gzip-req/s")
	b.ReportMetric(median(ratioGz), "gzip-ratio")
	b.ReportMetric(float64(len(doc)), "doc-bytes")
	b.ReportMetric(float64(len(rendered.Gzip)), "gzip-bytes")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkWriteToFeedLatency registers citizens through identity's HTTP
// API and times each from the accepted response to its feed line arriving
// on the live stream: outbox, relay, Kafka, aggregator, stream. Reports the
// median and the 99th percentile over b.N registrations.
func BenchmarkWriteToFeedLatency(b *testing.B) {
	kit := testkit.New(b)
	w := &world{kit: kit, deps: kit.Deps(nil)}
	svc, err := bulletin.New(kit.Ctx(), w.deps, bulletin.Options{})
	if err != nil {
		b.Fatal(err)
	}
	w.svc, w.app = svc, kit.App(svc)
	kit.Run(svc)
	identityApp := w.withIdentity(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = w.app.Listener(ln) }()
	b.Cleanup(func() { _ = w.app.ShutdownWithTimeout(time.Second) })
	s := openStream(b, "http://"+ln.Addr().String(), "")

	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		a := kit.NewAgent(fmt.Sprintf("Agent %d", i), nil)
		r := testkit.Do(b, identityApp, testkit.Request{Method: http.MethodPost, Path: "/api/world/register", Body: map[string]any{}, Headers: a.Headers()})
		if r.Status != 201 {
			b.Fatalf("register: %d %s", r.Status, r.Raw)
		}
		accepted := time.Now()
		for {
			_, item := s.next(b)
			if item["id"] == a.ID {
				break
			}
		}
		latencies = append(latencies, time.Since(accepted))
	}
	b.StopTimer()
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(latencies[len(latencies)-1].Microseconds())/1000, "max-ms")
}
