package load

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"sharedworld.dev/hack/services"
	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/proto/catalog"
)

// IdleRSS is one service binary's resident memory once ready and idle.
type IdleRSS struct {
	Name string
	RSS  int64
	Err  error
}

// IdleServices starts each service binary of the service table found in
// binDir (`make build` puts them there) alone, against an embedded FerretDB
// and Kafka broker that run in this process (so the binary's RSS is its
// own), waits until it is ready and has been idle for idle, and reads its RSS.
func IdleServices(ctx context.Context, binDir string, idle time.Duration) ([]IdleRSS, error) {
	dir, err := os.MkdirTemp("", "sharedworld-idle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	quiet := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	mongo, err := embedded.StartMongo(ctx, filepath.Join(dir, "mongo"), quiet)
	if err != nil {
		return nil, err
	}
	defer mongo.Stop()
	kafka, err := embedded.StartDurableKafka(filepath.Join(dir, "kafka"), 0, catalog.AllTopics()...)
	if err != nil {
		return nil, err
	}
	defer kafka.Stop()
	pub, _, _ := ed25519.GenerateKey(nil)
	var out []IdleRSS
	for _, e := range services.Table {
		r := IdleRSS{Name: e.Name()}
		bin := filepath.Join(binDir, e.Name())
		if _, err := os.Stat(bin); err != nil {
			r.Err = fmt.Errorf("no binary at %s (make build)", bin)
		} else {
			r.RSS, r.Err = idleOne(ctx, bin, idle, []string{
				"WORLD_MONGO_URI=" + mongo.URI, "WORLD_KAFKA_BROKERS=" + kafka.Brokers[0],
				"WORLD_DATA_DIR=" + filepath.Join(dir, e.Name()), "WORLD_LOG_LEVEL=warn",
				"WORLD_AMBASSADOR_TOKEN=idle-ambassador-token-0123456789",
				"WORLD_DEV_IDP=true", "WORLD_IDP_KEYS=dev-1=" + base64.StdEncoding.EncodeToString(pub),
			})
		}
		out = append(out, r)
	}
	return out, nil
}

func idleOne(ctx context.Context, bin string, idle time.Duration, env []string) (int64, error) {
	addr, admin, err := loopbackAddr(), loopbackAddr(), error(nil)
	if addr == "" || admin == "" {
		return 0, fmt.Errorf("no free port")
	}
	var log bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Env = append(append(os.Environ(), env...), "WORLD_ADDR="+addr, "WORLD_ADMIN_ADDR="+admin)
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err = cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-done:
			return 0, fmt.Errorf("exited while starting: %s", lastLine(log.Bytes()))
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if resp, err := http.Get("http://" + admin + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("not ready within 60 s: %s", lastLine(log.Bytes()))
		}
	}
	time.Sleep(idle) // idle is what is measured: nothing to wait for but time
	return RSS(cmd.Process.Pid)
}

func loopbackAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return ""
	}
	defer ln.Close()
	return ln.Addr().String()
}

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(lines[len(lines)-1])
}
