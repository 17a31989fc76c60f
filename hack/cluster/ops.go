package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Kill crashes replica i of a Deployment (SIGKILL); like a pod's
// container it is started again after a back-off.
func (c *Cluster) Kill(name string, i int) error {
	r, err := c.replica(name, i)
	if err != nil {
		return err
	}
	r.Kill()
	return nil
}

// Restart deletes replica i of a Deployment (SIGTERM, then SIGKILL after
// the grace period) and starts a new one in its place.
func (c *Cluster) Restart(ctx context.Context, name string, i int) error {
	d, err := c.deployment(name)
	if err != nil {
		return err
	}
	r, err := c.replica(name, i)
	if err != nil {
		return err
	}
	c.remove(d, r)
	return c.addReplica(ctx, d)
}

// Roll replaces every replica of a Deployment as its strategy says:
// RollingUpdate one at a time, each new replica ready before an old one
// is deleted (maxUnavailable 0, maxSurge 1); Recreate deletes all first.
func (c *Cluster) Roll(ctx context.Context, name string) error {
	d, err := c.deployment(name)
	if err != nil {
		return err
	}
	old := d.snapshot()
	if d.spec.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		for _, r := range old {
			c.remove(d, r)
		}
		for range old {
			if err := c.addReplica(ctx, d); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range old {
		if err := c.addReplica(ctx, d); err != nil {
			return err
		}
		c.remove(d, r)
	}
	return nil
}

// remove deletes a replica: out of the endpoints, SIGTERM, wait.
func (c *Cluster) remove(d *deployment, r *Replica) {
	r.Terminate(d.grace)
	d.mu.Lock()
	for i, x := range d.replicas {
		if x == r {
			d.replicas = append(d.replicas[:i], d.replicas[i+1:]...)
			break
		}
	}
	d.mu.Unlock()
}

func (c *Cluster) replica(name string, i int) (*Replica, error) {
	d, err := c.deployment(name)
	if err != nil {
		return nil, err
	}
	rs := d.snapshot()
	if i < 0 || i >= len(rs) {
		return nil, fmt.Errorf("deployment %s has %d replicas, not a replica %d", name, len(rs), i)
	}
	return rs[i], nil
}

// serveControl serves the harness's commands on their own port:
//
//	GET  /cluster                                    the Deployments, their replicas and readiness
//	POST /cluster/deployments/{name}/roll            roll a Deployment
//	POST /cluster/deployments/{name}/replicas/{i}/kill|restart
//	POST /cluster/cronjobs/{name}/run                run a CronJob now
func (c *Cluster) serveControl() error {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, err error) {
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(c.State())
	}
	mux.HandleFunc("GET /cluster", func(w http.ResponseWriter, r *http.Request) { reply(w, nil) })
	mux.HandleFunc("POST /cluster/deployments/{name}/roll", func(w http.ResponseWriter, r *http.Request) {
		reply(w, c.Roll(r.Context(), r.PathValue("name")))
	})
	mux.HandleFunc("POST /cluster/deployments/{name}/replicas/{i}/{op}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		switch op := r.PathValue("op"); {
		case err != nil:
		case op == "kill":
			err = c.Kill(r.PathValue("name"), i)
		case op == "restart":
			err = c.Restart(r.Context(), r.PathValue("name"), i)
		default:
			err = fmt.Errorf("unknown operation %q (kill, restart)", op)
		}
		reply(w, err)
	})
	mux.HandleFunc("POST /cluster/cronjobs/{name}/run", func(w http.ResponseWriter, r *http.Request) {
		reply(w, c.RunCronJob(r.Context(), r.PathValue("name")))
	})
	addr := c.opts.ControlAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	url, err := c.serve(addr, mux)
	c.ControlURL = url
	return err
}

// State is what GET /cluster answers.
type State struct {
	Deployments []DeploymentState `json:"deployments"`
}

// DeploymentState is one Deployment's replicas.
type DeploymentState struct {
	Name     string         `json:"name"`
	Replicas []ReplicaState `json:"replicas"`
}

// ReplicaState is one replica.
type ReplicaState struct {
	Name     string            `json:"name"`
	Ready    bool              `json:"ready"`
	Restarts int               `json:"restarts"`
	Addrs    map[string]string `json:"addrs"`
}

// State lists the Deployments and their replicas.
func (c *Cluster) State() State {
	var s State
	for _, d := range c.deployments {
		ds := DeploymentState{Name: d.spec.Name}
		for _, r := range d.snapshot() {
			ds.Replicas = append(ds.Replicas, ReplicaState{Name: r.Name, Ready: r.Ready(), Restarts: r.Restarts(), Addrs: r.Addrs})
		}
		s.Deployments = append(s.Deployments, ds)
	}
	return s
}

// serve serves h on addr until Stop and returns its URL.
func (c *Cluster) serve(addr string, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	s := &http.Server{Handler: h}
	c.servers = append(c.servers, s)
	go func() { _ = s.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// serveServices gives every Service port a local address balancing over
// its endpoints (kube-proxy's part); the replicas' environment names
// these addresses where the chart names the Services.
func (c *Cluster) serveServices() error {
	for _, svc := range c.Manifests.Services {
		for _, port := range svc.Spec.Ports {
			ep := c.serviceEndpoints(svc, port)
			url, err := c.serve("127.0.0.1:0", newBalancer(func(*http.Request) *endpoints { return ep }, false))
			if err != nil {
				return err
			}
			c.hosts.add(c.Manifests, svc.Name, strconv.Itoa(int(port.Port)), url[len("http://"):])
		}
	}
	return nil
}

// serveFront serves the Ingress rules on the front port; with the
// development clock the front also answers POST /api/admin/clock.
func (c *Cluster) serveFront() error {
	routes, err := c.ingressRoutes(c.Manifests.Ingresses)
	if err != nil {
		return err
	}
	if len(routes) == 0 {
		return fmt.Errorf("the chart rendered no Ingress path (ingress.enabled?)")
	}
	var h http.Handler = newBalancer(func(r *http.Request) *endpoints { return routes.match(r.URL.Path) }, true)
	if c.clock != nil {
		h = c.clock.front(h)
	}
	addr := c.opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	c.URL, err = c.serve(addr, h)
	return err
}

// servicePort finds a rendered Service's port by name or number.
func (c *Cluster) servicePort(name, port string, number int32) (svc corev1.Service, p corev1.ServicePort, err error) {
	for _, s := range c.Manifests.Services {
		if s.Name != name {
			continue
		}
		for _, sp := range s.Spec.Ports {
			if (port != "" && sp.Name == port) || (port == "" && sp.Port == number) {
				return s, sp, nil
			}
		}
	}
	return svc, p, fmt.Errorf("the Ingress names Service %s port %q%d, which is not rendered", name, port, number)
}
