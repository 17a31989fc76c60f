// Package cluster runs the world the way the Helm chart configures it, on
// one machine and without Kubernetes (`make cluster`): it renders the chart
// as `helm template` does, runs each Deployment's replicas as processes of
// the service binaries with exactly their container's arguments and
// environment, routes one front port by the rendered Ingress rules to the
// ready replicas, runs the CronJob on its schedule, and keeps a database
// and a broker in processes of their own. Kill, restart and roll are
// methods of Cluster (and routes of its control port), so that tests and
// load scripts can use them.
package cluster

import (
	"fmt"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/strvals"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

// Manifests are the objects a chart rendered that the cluster acts on.
type Manifests struct {
	Namespace   string
	Deployments []appsv1.Deployment
	CronJobs    []batchv1.CronJob
	Services    []corev1.Service
	Ingresses   []networkingv1.Ingress
	ConfigMaps  map[string]map[string]string
	Secrets     map[string]map[string][]byte
	// MinReplicas of each autoscaled Deployment, by Deployment name.
	MinReplicas map[string]int32
}

// RenderOptions say what to render.
type RenderOptions struct {
	Chart  string   // the chart's directory
	Values []string // values files, in order (helm -f)
	Set    []string // key=value overrides after them (helm --set)
	// Overrides are merged over everything else (values that may hold
	// commas or equals signs, such as URIs, which --set would split).
	Overrides map[string]any
	Release   string
	Namespace string
}

// kubeVersion is the version the chart is rendered for (its kubeVersion
// constraint and capability checks read it; helm template's own default is older).
const kubeVersion = "v1.37.2"

// Render renders the chart like `helm template` (no cluster to look
// objects up in, no hooks) and collects its objects.
func Render(o RenderOptions) (*Manifests, error) {
	ch, err := loader.Load(o.Chart)
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	vals := map[string]any{}
	for _, f := range o.Values {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return nil, fmt.Errorf("values %s: %w", f, err)
		}
		vals = chartutil.CoalesceTables(v.AsMap(), vals)
	}
	for _, s := range o.Set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, fmt.Errorf("--set %s: %w", s, err)
		}
	}
	if o.Overrides != nil {
		vals = chartutil.CoalesceTables(deepCopy(o.Overrides), vals)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = chartutil.KubeVersion{Version: kubeVersion, Major: "1", Minor: "37"}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: o.Release, Namespace: o.Namespace, Revision: 1, IsInstall: true}, caps)
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	m := &Manifests{Namespace: o.Namespace, ConfigMaps: map[string]map[string]string{}, Secrets: map[string]map[string][]byte{}, MinReplicas: map[string]int32{}}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
			continue // NOTES.txt, helpers
		}
		for _, doc := range releaseutil.SplitManifests(files[name]) {
			if err := m.add(doc); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return m, nil
}

// add decodes one rendered object into its kind's type. Hooks (helm test
// pods, pre-delete jobs) are not part of the running world.
func (m *Manifests) add(doc string) error {
	var head struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
		return err
	}
	if head.Kind == "" || head.Metadata.Annotations["helm.sh/hook"] != "" {
		return nil
	}
	var err error
	switch head.Kind {
	case "Deployment":
		var d appsv1.Deployment
		if err = yaml.UnmarshalStrict([]byte(doc), &d); err == nil {
			m.Deployments = append(m.Deployments, d)
		}
	case "CronJob":
		var c batchv1.CronJob
		if err = yaml.UnmarshalStrict([]byte(doc), &c); err == nil {
			m.CronJobs = append(m.CronJobs, c)
		}
	case "Service":
		var s corev1.Service
		if err = yaml.UnmarshalStrict([]byte(doc), &s); err == nil {
			m.Services = append(m.Services, s)
		}
	case "Ingress":
		var i networkingv1.Ingress
		if err = yaml.UnmarshalStrict([]byte(doc), &i); err == nil {
			m.Ingresses = append(m.Ingresses, i)
		}
	case "ConfigMap":
		var c corev1.ConfigMap
		if err = yaml.UnmarshalStrict([]byte(doc), &c); err == nil {
			m.ConfigMaps[c.Name] = c.Data
		}
	case "Secret":
		var s corev1.Secret
		if err = yaml.UnmarshalStrict([]byte(doc), &s); err == nil {
			data := map[string][]byte{}
			for k, v := range s.Data {
				data[k] = v
			}
			for k, v := range s.StringData {
				data[k] = []byte(v)
			}
			m.Secrets[s.Name] = data
		}
	case "HorizontalPodAutoscaler":
		var h autoscalingv2.HorizontalPodAutoscaler
		if err = yaml.UnmarshalStrict([]byte(doc), &h); err == nil && h.Spec.MinReplicas != nil {
			m.MinReplicas[h.Spec.ScaleTargetRef.Name] = *h.Spec.MinReplicas
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", head.Kind, err)
	}
	return nil
}

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = deepCopy(sub)
		}
		out[k] = v
	}
	return out
}
