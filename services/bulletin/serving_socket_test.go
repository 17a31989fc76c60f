package bulletin_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin"
	"sharedworld.dev/services/bulletin/internal/app"
)

// largeDocument publishes events until the document is over 20 KB (above
// the 16 KiB served from a file).
func (w *world) largeDocument(t *testing.T) {
	t.Helper()
	evs := mixedEvents(800)
	w.kit.Publish(evs...)
	w.waitHandledWithin(t, int64(len(evs)), time.Minute) // the shared mode applies them slower
	testkit.Eventually(t, 10*time.Second, "a large document rendered", func() bool {
		r := w.svc.Board().Current()
		return r != nil && len(r.JSON) > 20_000
	})
}

// tagOf is the document's ETag as the bulletin computes it.
func tagOf(doc []byte) string {
	sum := sha256.Sum256(doc)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

func get(c *testkit.Conn, method string, headers ...string) (*http.Response, []byte) {
	req := method + " /api/world/bulletin HTTP/1.1\r\nHost: test\r\n"
	for _, h := range headers {
		req += h + "\r\n"
	}
	c.Send(req + "\r\n")
	return c.Read(method)
}

// TestLargeDocumentOverASocket: a document large enough to leave by
// sendfile, on one keep-alive connection: the exact bytes in both
// encodings, HEAD, 304, and the caching headers (CONTRACT §6).
func TestLargeDocumentOverASocket(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	w.largeDocument(t)
	addr := strings.TrimPrefix(w.serve(t), "http://")

	conn := testkit.Dial(t, addr)
	// A rendering still due from the last events may replace the document
	// during a round; such a round is tried again with the new document,
	// while a wrong answer about an unchanged document fails at once.
	for rounds, tries := 0, 0; rounds < 2; tries++ {
		if tries == 10 {
			t.Fatal("the document kept changing during every round")
		}
		r := w.svc.Board().Current()
		if err := documentRound(conn, r); err != nil {
			if w.svc.Board().Current() != r {
				continue
			}
			t.Fatal(err)
		}
		rounds++
	}
}

// documentRound asks for r four ways on conn: plain, gzip, HEAD and with
// its ETag, and says what was wrong.
func documentRound(conn *testkit.Conn, r *app.Rendered) error {
	resp, body := get(conn, http.MethodGet)
	if resp.StatusCode != 200 || !bytes.Equal(body, r.JSON) || resp.Header.Get("Etag") != r.ETag ||
		resp.Header.Get("Cache-Control") != "public, max-age=5" || resp.Header.Get("Vary") != "Accept-Encoding" ||
		resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || resp.Header.Get("Content-Encoding") != "" {
		return fmt.Errorf("GET: status %d, %d of %d bytes (equal %v), headers %v", resp.StatusCode, len(body), len(r.JSON), bytes.Equal(body, r.JSON), resp.Header)
	}
	resp, body = get(conn, http.MethodGet, "Accept-Encoding: gzip")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, r.Gzip) {
		return fmt.Errorf("GET gzip: status %d, %d bytes, headers %v", resp.StatusCode, len(body), resp.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return err
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, r.JSON) {
		return fmt.Errorf("the gzip body is not the document")
	}
	resp, body = get(conn, http.MethodHead)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Length") != strconv.Itoa(len(r.JSON)) || len(body) != 0 || resp.Header.Get("Etag") != r.ETag {
		return fmt.Errorf("HEAD: status %d, Content-Length %q, %d body bytes", resp.StatusCode, resp.Header.Get("Content-Length"), len(body))
	}
	resp, body = get(conn, http.MethodGet, "If-None-Match: "+r.ETag)
	if resp.StatusCode != 304 || len(body) != 0 || resp.Header.Get("Etag") != r.ETag || resp.Header.Get("Vary") != "Accept-Encoding" {
		return fmt.Errorf("If-None-Match: status %d, %d bytes, headers %v", resp.StatusCode, len(body), resp.Header)
	}
	return nil
}

// TestDocumentChangesUnderConcurrentReaders: readers on keep-alive
// connections while the document keeps changing each get a whole
// document under its own ETag, in both encodings, and see it change.
func TestDocumentChangesUnderConcurrentReaders(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	w.largeDocument(t)
	addr := w.serve(t)

	var served atomic.Int64
	var mu sync.Mutex
	tags := map[string]bool{}
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 20 * time.Second}
			defer client.CloseIdleConnections()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest(http.MethodGet, addr+"/api/world/bulletin", nil)
				if n%2 == 1 {
					req.Header.Set("Accept-Encoding", "gzip")
				}
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil && resp.Header.Get("Content-Encoding") == "gzip" {
					var zr *gzip.Reader
					if zr, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
						body, err = io.ReadAll(zr)
					}
				}
				if err != nil {
					errs <- err
					return
				}
				if tag := resp.Header.Get("Etag"); resp.StatusCode != 200 || tagOf(body) != tag {
					errs <- fmt.Errorf("status %d: a %d-byte body is not the document of its ETag %s", resp.StatusCode, len(body), tag)
					return
				}
				mu.Lock()
				tags[resp.Header.Get("Etag")] = true
				mu.Unlock()
				served.Add(1)
			}
		}()
	}
	// Each change waits for some responses, so readers race every rendering.
	changes := 0
	for i := 0; i < 10; i++ {
		target := served.Load() + 20
		testkit.Eventually(t, 20*time.Second, "responses between changes", func() bool { return served.Load() >= target || len(errs) > 0 })
		before := w.svc.Board().Current()
		w.kit.Publish(gardenEvent(10_000 + i))
		testkit.Eventually(t, 10*time.Second, "a new rendering", func() bool { return w.svc.Board().Current() != before })
		changes++
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(tags) < 3 {
		t.Fatalf("readers saw %d versions over %d changes", len(tags), changes)
	}
}
