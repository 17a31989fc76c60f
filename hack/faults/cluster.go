package faults

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"sharedworld.dev/hack/cluster"
	"sharedworld.dev/hack/proc"
	"sharedworld.dev/hack/services"
)

// Build compiles the service binaries, the standalone broker and database,
// and the runner into dir.
func Build(ctx context.Context, dir string) error {
	return cluster.Build(ctx, dir, "sharedworld.dev/hack/cmd/world")
}

// Cluster is the world as a deployment runs it, on loopback: one process
// per service binary, the broker and the database each in a process of
// their own, and the Proxy in front.
type Cluster struct {
	DB, Broker *proc.Proc
	// DBGate stands between the services and the database.
	DBGate *Gate
	// Services by name, in the service table's order.
	Services map[string]*proc.Proc
	Proxy    *Proxy
	// URL is the Proxy's base URL; Brokers the broker's address.
	URL     string
	Brokers []string

	server *http.Server
}

// ClusterOptions places a cluster.
type ClusterOptions struct {
	BinDir, DataDir string
	Token           string
	Log             io.Writer
	// Env is added to every service binary's environment.
	Env []string
}

// StartCluster starts the database, the broker, every service (identity
// first: the others fetch its development provider's keys) and the proxy.
func StartCluster(ctx context.Context, o ClusterOptions) (c *Cluster, err error) {
	c = &Cluster{Services: map[string]*proc.Proc{}}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	c.DB = &proc.Proc{Name: "embedded-db", Bin: filepath.Join(o.BinDir, "embedded-db"), Args: []string{"-dir", filepath.Join(o.DataDir, "mongo")}, Log: o.Log}
	if err := c.DB.Start(ctx); err != nil {
		return nil, err
	}
	dbURL, err := url.Parse(c.DB.Line)
	if err != nil {
		return nil, fmt.Errorf("the database's URI %q: %w", c.DB.Line, err)
	}
	if c.DBGate, err = NewGate(dbURL.Host); err != nil {
		return nil, err
	}
	dbURL.Host = c.DBGate.Addr()
	port, err := proc.FreePort()
	if err != nil {
		return nil, err
	}
	c.Broker = &proc.Proc{Name: "embedded-broker", Bin: filepath.Join(o.BinDir, "embedded-broker"),
		Args: []string{"-dir", filepath.Join(o.DataDir, "kafka"), "-port", fmt.Sprint(port)}, Log: o.Log}
	if err := c.Broker.Start(ctx); err != nil {
		return nil, err
	}
	c.Brokers = []string{c.Broker.Line}

	upstream := map[string]string{}
	identity := ""
	for _, e := range services.Table {
		addr, err := proc.FreeAddr()
		if err != nil {
			return nil, err
		}
		admin, err := proc.FreeAddr()
		if err != nil {
			return nil, err
		}
		upstream[e.Name()] = "http://" + addr
		env := append([]string{
			"WORLD_ADDR=" + addr, "WORLD_ADMIN_ADDR=" + admin, "WORLD_MONGO_URI=" + dbURL.String(),
			"WORLD_KAFKA_BROKERS=" + strings.Join(c.Brokers, ","), "WORLD_AMBASSADOR_TOKEN=" + o.Token,
			"WORLD_DATA_DIR=" + filepath.Join(o.DataDir, e.Name()), "WORLD_LOG_LEVEL=warn",
		}, o.Env...)
		if e.Name() == "identity" {
			identity = "http://" + addr
			env = append(env, "WORLD_DEV_IDP=true")
		} else {
			env = append(env, "WORLD_IDENTITY_URL="+identity,
				"WORLD_IDP_KEYS_URL="+identity+"/dev/idp/keys", "WORLD_IDP_REVOCATIONS_URL="+identity+"/dev/idp/revocations")
		}
		p := &proc.Proc{Name: e.Name(), Bin: filepath.Join(o.BinDir, e.Name()), Env: env, Log: o.Log,
			Ready: proc.HTTPReady("http://" + admin + "/readyz")}
		c.Services[e.Name()] = p
		if err := p.Start(ctx); err != nil {
			return nil, err
		}
	}
	if c.Proxy, err = NewProxy(upstream); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c.URL = "http://" + ln.Addr().String()
	c.server = &http.Server{Handler: c.Proxy}
	go func() { _ = c.server.Serve(ln) }()
	return c, nil
}

// Stop ends every process, the services before what they use.
func (c *Cluster) Stop() {
	if c.server != nil {
		_ = c.server.Close()
	}
	for i := len(services.Table) - 1; i >= 0; i-- {
		if p := c.Services[services.Table[i].Name()]; p != nil {
			p.Stop()
		}
	}
	if c.Broker != nil {
		c.Broker.Stop()
	}
	if c.DBGate != nil {
		c.DBGate.Close()
	}
	if c.DB != nil {
		c.DB.Stop()
	}
}
