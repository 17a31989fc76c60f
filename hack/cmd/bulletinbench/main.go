// Command bulletinbench measures GET /api/world/bulletin of a running world
// against nginx serving the same bytes as a static file, side by side in one
// run, with wrk as the load generator (a separate process for both).
//
//	go run ./hack/cmd/bulletinbench -world http://127.0.0.1:8080
//
// It also times writes from acceptance to their line on the live feed.
// It seeds the world with citizens, plots, garden files and tickets through
// the public API first (-citizens), so the document has a small size (a few KB),
// measures, then grows the world twice and measures again each time:
// -medium-citizens more citizens with plots (about 36 KB), then
// -large-citizens more and -announcements long announcements by the
// ambassador (-token), about 200 KB. Every size is measured with and
// without gzip, and a summary table ends the run. Needs wrk and nginx on
// PATH (Debian: wrk, nginx-light); hack/bench/bulletin-vs-nginx.sh installs
// them and starts the world.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"syscall"
	"time"
)

// worldPID is the world's process, when given: its CPU time is read around
// each round.
var worldPID int

func main() {
	world := flag.String("world", "http://127.0.0.1:8080", "base URL of a running world")
	citizens := flag.Int("citizens", 1, "citizens to seed (each claims a plot, plants, files a ticket): the small document, about 2.5 KB")
	rounds := flag.Int("rounds", 3, "alternating rounds per target")
	duration := flag.String("duration", "5s", "wrk duration per round")
	conns := flag.Int("connections", 64, "wrk connections")
	nginxPort := flag.Int("nginx-port", 18089, "port for nginx")
	writes := flag.Int("latency-writes", 300, "garden writes timed from acceptance to their live feed line (0: skip)")
	medium := flag.Int("medium-citizens", 199, "citizens added (each with a plot) before the medium-document round, about 36 KB (0: no medium round)")
	large := flag.Int("large-citizens", 1000, "citizens added (each with a plot) before the large-document round, about 200 KB (0: no large round)")
	announcements := flag.Int("announcements", 10, "long announcements posted before the large-document round")
	token := flag.String("token", os.Getenv("WORLD_AMBASSADOR_TOKEN"), "the ambassador's token, for the announcements")
	flag.IntVar(&worldPID, "world-pid", 0, "the world's process id: each round also reports the CPU time per request of both servers (0: rates only)")
	flag.Parse()

	seed(*world, 0, *citizens)
	if *writes > 0 {
		latency(*world, *writes)
	}
	var table []row
	table = append(table, compare(*world, *nginxPort, *rounds, *duration, *conns, fmt.Sprintf("%d citizens seeded", *citizens))...)
	total := *citizens
	if *medium > 0 {
		seed(*world, total, *medium)
		total += *medium
		table = append(table, compare(*world, *nginxPort, *rounds, *duration, *conns, fmt.Sprintf("%d citizens", total))...)
	}
	if *large > 0 {
		seed(*world, total, *large)
		total += *large
		announce(*world, *token, *announcements)
		table = append(table, compare(*world, *nginxPort, *rounds, *duration, *conns, fmt.Sprintf("%d citizens, %d long announcements", total, *announcements))...)
	}
	// The rate ratio is what the issue asks for; on a busy machine it moves
	// with the neighbours' load. The CPU time per request (nginx's over the
	// bulletin's: 1 means as cheap) moves much less.
	fmt.Println()
	fmt.Printf("%-10s %-9s %10s %12s %12s %7s %12s %10s %9s\n", "document", "encoding", "body", "bulletin/s", "nginx/s", "ratio", "bulletin µs", "nginx µs", "cpu ratio")
	for _, r := range table {
		fmt.Printf("%-10s %-9s %10s %12.0f %12.0f %7.2f", kb(r.doc), r.encoding, kb(r.body), r.bulletin, r.nginx, r.bulletin/r.nginx)
		if r.bulletinCPU > 0 {
			fmt.Printf(" %12.1f %10.1f %9.2f", r.bulletinCPU, r.nginxCPU, r.nginxCPU/r.bulletinCPU)
		}
		fmt.Println()
	}
}

// row is one cell pair of the summary: a document size and encoding, the
// medians of both servers.
type row struct {
	doc, body             int
	encoding              string
	bulletin, nginx       float64
	bulletinCPU, nginxCPU float64 // µs of CPU per request, when the world's pid is known
}

func kb(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }

// compare serves the world's current document from nginx too and runs the
// alternating wrk rounds against both, with and without gzip.
func compare(world string, nginxPort, rounds int, duration string, conns int, what string) []row {
	settle(world)
	body := get(world+"/api/world/bulletin", false)
	gz := get(world+"/api/world/bulletin", true)
	dir, err := os.MkdirTemp("", "bulletinbench-")
	must(err)
	defer os.RemoveAll(dir)
	// nginx's worker may run as another user (nobody when started as root):
	// it must be able to read the files, or it answers 403 at great speed.
	must(os.Chmod(dir, 0o755))
	stopNginx, nginxPID := startNginx(dir, nginxPort, body, gz)
	defer stopNginx()

	targets := []struct {
		name, url, header string
		pid               int
	}{
		{"bulletin", world + "/api/world/bulletin", "", worldPID},
		{"nginx", fmt.Sprintf("http://127.0.0.1:%d/bulletin.json", nginxPort), "", nginxPID},
		{"bulletin gzip", world + "/api/world/bulletin", "Accept-Encoding: gzip", worldPID},
		{"nginx gzip", fmt.Sprintf("http://127.0.0.1:%d/bulletin.json", nginxPort), "Accept-Encoding: gzip", nginxPID},
	}
	results, cpu := map[string][]float64{}, map[string][]float64{}
	for r := 0; r < rounds; r++ {
		for _, t := range targets {
			before := cpuTicks(t.pid)
			rate, n := wrk(t.url, t.header, duration, conns)
			results[t.name] = append(results[t.name], rate)
			if t.pid > 0 {
				cpu[t.name] = append(cpu[t.name], float64(cpuTicks(t.pid)-before)*1e6/clockTicks/float64(n))
			}
		}
	}
	fmt.Printf("document: %d bytes (%d gzip), %s, %d rounds of %s, %d connections\n", len(body), len(gz), what, rounds, duration, conns)
	var rows []row
	for _, pair := range []struct {
		a, b, encoding string
		body           int
	}{{"bulletin", "nginx", "identity", len(body)}, {"bulletin gzip", "nginx gzip", "gzip", len(gz)}} {
		a, b := median(results[pair.a]), median(results[pair.b])
		fmt.Printf("%-14s %9.0f req/s   %-11s %9.0f req/s   ratio %.2f   (rounds: %v vs %v)\n", pair.a, a, pair.b, b, a/b, results[pair.a], results[pair.b])
		r := row{doc: len(body), body: pair.body, encoding: pair.encoding, bulletin: a, nginx: b}
		if worldPID > 0 {
			r.bulletinCPU, r.nginxCPU = median(cpu[pair.a]), median(cpu[pair.b])
			fmt.Printf("%-14s %9.1f µs CPU per request   %-11s %9.1f µs   (rounds: %.1f vs %.1f)\n", pair.a, r.bulletinCPU, pair.b, r.nginxCPU, cpu[pair.a], cpu[pair.b])
		}
		rows = append(rows, r)
	}
	return rows
}

func seed(world string, first, n int) {
	for i := first; i < first+n; i++ {
		var reg struct {
			AgentID     string          `json:"agent_id"`
			Certificate json.RawMessage `json:"certificate"`
		}
		post(world+"/dev/idp/register", nil, map[string]any{"agent_name": fmt.Sprintf("Citizen %d", i)}, &reg)
		h := map[string]string{"X-Agent-Id": reg.AgentID, "X-Agent-Certificate": string(reg.Certificate)}
		post(world+"/api/world/register", h, map[string]any{"name": fmt.Sprintf("Citizen %d", i)}, nil)
		post(world+"/api/world/plots/claim", h, map[string]any{"x": 1 + i%900, "y": 1 + i/900}, nil)
		post(world+"/api/world/storage/write", h, map[string]any{"plot_id": "plot_0_0", "path": fmt.Sprintf("/garden/c%d/poem.md", i), "content": "aGVsbG8="}, nil)
		if i%4 == 0 {
			post(world+"/api/world/tickets", h, map[string]any{"category": "feature", "title": fmt.Sprintf("Idea %d", i), "description": "More benches."}, nil)
		}
	}
}

// announce posts n announcements of 2,000 characters (the contract's most).
func announce(world, token string, n int) {
	if n > 0 && token == "" {
		log.Fatal("-announcements needs -token (or WORLD_AMBASSADOR_TOKEN)")
	}
	text := bytes.Repeat([]byte("A long notice to grow the board. "), 61)[:2000]
	for i := 0; i < n; i++ {
		post(world+"/api/admin/announcements", map[string]string{"Authorization": "Bearer " + token},
			map[string]any{"title": fmt.Sprintf("Notice %d", i), "content": string(text)}, nil)
	}
}

func post(url string, headers map[string]string, body any, out any) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	must(err)
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		raw, _ := io.ReadAll(resp.Body)
		log.Fatalf("POST %s: %d %s", url, resp.StatusCode, raw)
	}
	if out != nil {
		must(json.NewDecoder(resp.Body).Decode(out))
	}
}

func get(url string, gzip bool) []byte {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	tr := &http.Transport{DisableCompression: true}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	must(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(err)
	return b
}

func startNginx(dir string, port int, body, gz []byte) (stop func(), worker int) {
	root := filepath.Join(dir, "www")
	must(os.MkdirAll(root, 0o755))
	must(os.WriteFile(filepath.Join(root, "bulletin.json"), body, 0o644))
	must(os.WriteFile(filepath.Join(root, "bulletin.json.gz"), gz, 0o644))
	conf := fmt.Sprintf(`worker_processes 1;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path %[1]s/tmp; proxy_temp_path %[1]s/tmp; fastcgi_temp_path %[1]s/tmp; uwsgi_temp_path %[1]s/tmp; scgi_temp_path %[1]s/tmp;
  types { application/json json; }
  sendfile on; tcp_nopush on; keepalive_requests 1000000;
  gzip_static on;
  server { listen 127.0.0.1:%[2]d; root %[3]s; add_header Cache-Control "public, max-age=5"; etag on; }
}
`, dir, port, root)
	must(os.MkdirAll(filepath.Join(dir, "tmp"), 0o755))
	confPath := filepath.Join(dir, "nginx.conf")
	must(os.WriteFile(confPath, []byte(conf), 0o644))
	cmd := exec.Command("nginx", "-c", confPath, "-p", dir)
	cmd.Stderr = os.Stderr
	// A session of its own, as the world has (hack/bench/bulletin-vs-nginx.sh):
	// with autogroup scheduling each session shares the CPU with wrk's as a
	// group, so both servers meet wrk on the same terms.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	must(cmd.Start())
	deadline := time.Now().Add(5 * time.Second)
	for {
		if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/bulletin.json", port)); err == nil {
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, body) {
				log.Fatalf("nginx answered %d with %d bytes, not the %d-byte document", resp.StatusCode, len(got), len(body))
			}
			break
		}
		if time.Now().After(deadline) {
			log.Fatal("nginx did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// SIGTERM lets the master stop its worker too (a kill would orphan it).
	return func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }, childOf(cmd.Process.Pid)
}

var (
	rpsLine   = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	countLine = regexp.MustCompile(`([0-9]+) requests in`)
)

// wrk runs one round (one wrk thread: the machine's other core serves) and
// returns the rate and the number of requests.
func wrk(url, header, duration string, conns int) (float64, int) {
	args := []string{"-t1", "-c" + strconv.Itoa(conns), "-d" + duration}
	if header != "" {
		args = append(args, "-H", header)
	}
	out, err := exec.Command("wrk", append(args, url)...).CombinedOutput()
	if err != nil {
		log.Fatalf("wrk: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte("Non-2xx")) || bytes.Contains(out, []byte("Socket errors")) {
		log.Fatalf("wrk saw failed requests, so its rate is not a document's:\n%s", out)
	}
	m, c := rpsLine.FindSubmatch(out), countLine.FindSubmatch(out)
	if m == nil || c == nil {
		log.Fatalf("wrk output without Requests/sec or a request count:\n%s", out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	n, _ := strconv.Atoi(string(c[1]))
	return v, max(n, 1)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
