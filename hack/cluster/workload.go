package cluster

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Container is what a pod's one container runs, resolved against the
// rendered ConfigMaps and Secrets: the binary its image carries, its
// arguments and environment (Kubernetes' order: envFrom, then env), its
// named ports and its readiness probe.
type Container struct {
	Binary string
	Args   []string
	Env    []string // KEY=value, later entries win
	Ports  map[string]int32
	// Readiness is the rendered readiness probe (nil: ready once started).
	Readiness *corev1.Probe
}

// container resolves a pod's first container. The image
// <repository>/<name>:<tag> runs the binary <name>.
func (m *Manifests) container(pod corev1.PodSpec) (Container, error) {
	if len(pod.Containers) == 0 {
		return Container{}, fmt.Errorf("the pod has no container")
	}
	c := pod.Containers[0]
	image := path.Base(c.Image)
	if i := strings.IndexAny(image, ":@"); i >= 0 {
		image = image[:i]
	}
	out := Container{Binary: image, Args: append(append([]string{}, c.Command[min(1, len(c.Command)):]...), c.Args...), Ports: map[string]int32{}, Readiness: c.ReadinessProbe}
	for _, p := range c.Ports {
		out.Ports[p.Name] = p.ContainerPort
	}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			data, ok := m.ConfigMaps[from.ConfigMapRef.Name]
			if !ok && !isOptional(from.ConfigMapRef.Optional) {
				return out, fmt.Errorf("ConfigMap %q (envFrom) is not rendered", from.ConfigMapRef.Name)
			}
			for k, v := range data {
				out.Env = append(out.Env, from.Prefix+k+"="+v)
			}
		case from.SecretRef != nil:
			data, ok := m.Secrets[from.SecretRef.Name]
			if !ok && !isOptional(from.SecretRef.Optional) {
				return out, fmt.Errorf("secret %q (envFrom) is not rendered", from.SecretRef.Name)
			}
			for k, v := range data {
				out.Env = append(out.Env, from.Prefix+k+"="+string(v))
			}
		}
	}
	for _, e := range c.Env {
		v, ok, err := m.envValue(e)
		if err != nil {
			return out, err
		}
		if ok {
			out.Env = append(out.Env, e.Name+"="+v)
		}
	}
	return out, nil
}

// envValue resolves one env entry; ok is false for an optional reference
// to a key that does not exist (Kubernetes leaves the variable unset).
func (m *Manifests) envValue(e corev1.EnvVar) (string, bool, error) {
	if e.ValueFrom == nil {
		return e.Value, true, nil
	}
	switch ref := e.ValueFrom; {
	case ref.ConfigMapKeyRef != nil:
		v, ok := m.ConfigMaps[ref.ConfigMapKeyRef.Name][ref.ConfigMapKeyRef.Key]
		if !ok && !isOptional(ref.ConfigMapKeyRef.Optional) {
			return "", false, fmt.Errorf("%s: key %q of ConfigMap %q is not rendered", e.Name, ref.ConfigMapKeyRef.Key, ref.ConfigMapKeyRef.Name)
		}
		return v, ok, nil
	case ref.SecretKeyRef != nil:
		v, ok := m.Secrets[ref.SecretKeyRef.Name][ref.SecretKeyRef.Key]
		if !ok && !isOptional(ref.SecretKeyRef.Optional) {
			return "", false, fmt.Errorf("%s: key %q of Secret %q is not rendered (an existing Secret the chart only names cannot be run locally)", e.Name, ref.SecretKeyRef.Key, ref.SecretKeyRef.Name)
		}
		return string(v), ok, nil
	}
	return "", false, fmt.Errorf("%s: only values, ConfigMap and Secret keys can be resolved locally", e.Name)
}

func isOptional(b *bool) bool { return b != nil && *b }

// replicas is how many pods the Deployment runs: the override when given
// (never for a Deployment replaced by stopping it first, Recreate: the
// chart runs those as one pod, or none during a rebuild), else its own
// count, else its autoscaler's minimum.
func (m *Manifests) replicas(d appsv1.Deployment, override int) int {
	if override > 0 && d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		return override
	}
	if d.Spec.Replicas != nil {
		return int(*d.Spec.Replicas)
	}
	if n, ok := m.MinReplicas[d.Name]; ok {
		return int(n)
	}
	return 1
}

// serviceHosts maps every name a Service answers to in the cluster's DNS
// (name, name.namespace, name.namespace.svc, ...) with a port to the local
// address that stands for it.
type serviceHosts map[string]string

func (h serviceHosts) add(m *Manifests, svc, port string, local string) {
	for _, name := range []string{svc, svc + "." + m.Namespace, svc + "." + m.Namespace + ".svc", svc + "." + m.Namespace + ".svc.cluster.local"} {
		h[net.JoinHostPort(name, port)] = local
	}
}

// rewrite replaces in-cluster Service addresses in an environment value
// (a URL, or a comma-separated list of them or of host:port) by the local
// addresses standing for them.
func (h serviceHosts) rewrite(v string) string {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		if u, err := url.Parse(p); err == nil && u.Host != "" {
			if local, ok := h[u.Host]; ok {
				u.Host = local
				parts[i] = u.String()
			}
			continue
		}
		if local, ok := h[p]; ok {
			parts[i] = local
		}
	}
	return strings.Join(parts, ",")
}

// probeTarget is the address and path of an HTTP probe against a pod
// whose named ports listen at addrs.
func probeTarget(p *corev1.Probe, ports map[string]int32, addrs map[string]string) (string, error) {
	if p == nil || p.HTTPGet == nil {
		return "", fmt.Errorf("only HTTP probes can be run locally")
	}
	port := p.HTTPGet.Port.String()
	addr, ok := addrs[port]
	if !ok {
		for name, n := range ports {
			if strconv.Itoa(int(n)) == port {
				addr, ok = addrs[name], true
			}
		}
	}
	if !ok {
		return "", fmt.Errorf("the probe's port %s is not a port of the container", port)
	}
	return "http://" + addr + p.HTTPGet.Path, nil
}
