package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// endpoints are the ready replicas behind one Service port, picked round
// robin: what kube-proxy and an Ingress controller route to.
type endpoints struct {
	c    *Cluster
	sel  labels.Selector
	port string // the pods' named (target) port
	next atomic.Uint64
}

// pick returns the address of a ready replica, skipping tried ones.
func (e *endpoints) pick(tried map[string]bool) (string, bool) {
	var ready []string
	for _, d := range e.c.deployments {
		if !e.sel.Matches(labels.Set(d.spec.Spec.Template.Labels)) {
			continue
		}
		for _, r := range d.snapshot() {
			if addr := r.Addrs[e.port]; r.Ready() && addr != "" && !tried[addr] {
				ready = append(ready, addr)
			}
		}
	}
	if len(ready) == 0 {
		return "", false
	}
	sort.Strings(ready)
	return ready[int(e.next.Add(1)%uint64(len(ready)))], true
}

// serviceEndpoints are the endpoints of a Service's named port.
func (c *Cluster) serviceEndpoints(svc corev1.Service, port corev1.ServicePort) *endpoints {
	target := port.TargetPort.String()
	if target == "" || target == "0" {
		target = port.Name
	}
	return &endpoints{c: c, sel: labels.SelectorFromSet(svc.Spec.Selector), port: target}
}

// balancer proxies HTTP to the endpoints. A connection that cannot be made
// (a replica that just exited) is tried on the next endpoint, as an Ingress
// controller does: nothing of the request was sent. With no ready endpoint
// the answer is 503, as from an Ingress controller.
type balancer struct {
	route func(r *http.Request) *endpoints
	proxy *httputil.ReverseProxy
	// realIP sets X-Real-IP to the client's address (the Ingress
	// controller's header the services' per-source limits read).
	realIP bool
}

type ctxKey struct{}

func newBalancer(route func(r *http.Request) *endpoints, realIP bool) *balancer {
	b := &balancer{route: route, realIP: realIP}
	transport := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 256, IdleConnTimeout: 60 * time.Second, DisableCompression: true,
	}
	b.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.SetXForwarded()
			if b.realIP {
				host, _, _ := net.SplitHostPort(pr.In.RemoteAddr)
				pr.Out.Header.Set("X-Real-IP", host)
			}
		},
		Transport: retryDial{transport},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			status := http.StatusBadGateway
			if errors.Is(err, errNoEndpoint) {
				status = http.StatusServiceUnavailable
			}
			http.Error(w, http.StatusText(status), status)
		},
	}
	return b
}

var errNoEndpoint = errors.New("no ready endpoint")

func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep := b.route(r)
	if ep == nil {
		http.NotFound(w, r)
		return
	}
	b.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, ep)))
}

// retryDial sends a request to a picked endpoint, and to the next one
// when the connection could not be made.
type retryDial struct{ t *http.Transport }

func (rt retryDial) RoundTrip(req *http.Request) (*http.Response, error) {
	ep, _ := req.Context().Value(ctxKey{}).(*endpoints)
	if req.Body != nil {
		req.Body = keepOpen{req.Body} // a failed dial closes the body it never read
	}
	tried := map[string]bool{}
	for {
		addr, ok := ep.pick(tried)
		if !ok {
			return nil, errNoEndpoint
		}
		tried[addr] = true
		req.URL.Host = addr
		resp, err := rt.t.RoundTrip(req)
		var op *net.OpError
		if err != nil && errors.As(err, &op) && op.Op == "dial" {
			continue
		}
		return resp, err
	}
}

type keepOpen struct{ io.ReadCloser }

func (keepOpen) Close() error { return nil }

// ingressRoutes are the rendered Ingress rules' paths: the longest
// matching prefix wins, as with ingress-nginx.
type ingressRoutes []ingressPath

type ingressPath struct {
	prefix string
	exact  bool
	ep     *endpoints
}

func (c *Cluster) ingressRoutes(ings []networkingv1.Ingress) (ingressRoutes, error) {
	var out ingressRoutes
	for _, ing := range ings {
		for _, rule := range ing.Spec.Rules {
			if rule.HTTP == nil {
				continue
			}
			for _, p := range rule.HTTP.Paths {
				if p.Backend.Service == nil {
					return nil, fmt.Errorf("ingress %s: a path to a resource backend cannot be run locally", ing.Name)
				}
				svc, port, err := c.servicePort(p.Backend.Service.Name, p.Backend.Service.Port.Name, p.Backend.Service.Port.Number)
				if err != nil {
					return nil, err
				}
				exact := p.PathType != nil && *p.PathType == networkingv1.PathTypeExact
				out = append(out, ingressPath{prefix: p.Path, exact: exact, ep: c.serviceEndpoints(svc, port)})
			}
		}
	}
	sortRoutes(out)
	return out, nil
}

// sortRoutes puts the longest paths first, an Exact path before a Prefix
// one of the same length: the first match is the one Kubernetes picks.
func sortRoutes(r ingressRoutes) {
	sort.SliceStable(r, func(i, j int) bool {
		if len(r[i].prefix) != len(r[j].prefix) {
			return len(r[i].prefix) > len(r[j].prefix)
		}
		return r[i].exact && !r[j].exact
	})
}

// match follows Kubernetes' Prefix path type: the path's elements begin
// with the prefix's ("/api/world/plots" matches /api/world/plots/claim, not
// /api/world/plotsx).
func (routes ingressRoutes) match(path string) *endpoints {
	for _, p := range routes {
		switch {
		case p.exact:
			if path == p.prefix {
				return p.ep
			}
		case p.prefix == "/" || path == strings.TrimSuffix(p.prefix, "/") || strings.HasPrefix(path, strings.TrimSuffix(p.prefix, "/")+"/"):
			return p.ep
		}
	}
	return nil
}
