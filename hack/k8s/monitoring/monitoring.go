// Package monitoring reads what SREs watch (deploy/prometheus/rules.yaml
// and deploy/dashboards/*.json) and names every metric their queries use,
// so a test can hold them to the metrics the code exposes.
package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

// Query is one PromQL expression and where it came from.
type Query struct {
	Where string
	Expr  string
}

// Rule is one rule of the rule file.
type Rule struct {
	Record      string            `json:"record"`
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// Rules reads a Prometheus rule file.
func Rules(path string) ([]Rule, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []Rule `json:"rules"`
		} `json:"groups"`
	}
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Rule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	return out, nil
}

// DashboardQueries reads every panel target of a Grafana dashboard and
// every query variable.
func DashboardQueries(path string) ([]Query, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Query
	for _, v := range d.Templating.List {
		q, _ := v.Query.(string)
		if v.Type != "query" {
			continue
		}
		// label_values(<selector>, <label>): the selector is the query.
		inner, ok := strings.CutPrefix(q, "label_values(")
		i := strings.LastIndex(inner, ",")
		if !ok || i < 0 {
			return nil, fmt.Errorf("%s: variable %s: want label_values(<selector>, <label>), got %q", path, v.Name, q)
		}
		out = append(out, Query{Where: filepath.Base(path) + ": variable " + v.Name, Expr: inner[:i]})
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			return nil, fmt.Errorf("%s: panel %q has no query", path, p.Title)
		}
		for _, t := range p.Targets {
			out = append(out, Query{Where: filepath.Base(path) + ": " + p.Title, Expr: t.Expr})
		}
	}
	return out, nil
}

// grafanaVars are Grafana's variables, replaced by what they stand for
// before parsing: a range, or for a label value a placeholder that
// Selector.Variable recognises (its values come from the variable's own
// query, which is checked on its own).
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h",
	"$namespace", variable+"namespace", "$service", variable+"service")

const variable = "__grafana_variable_"

// Selector is one vector selector of a query: the metric it names and its
// label matchers (the name matcher left out).
type Selector struct {
	Metric   string
	Matchers []*labels.Matcher
}

// Variable tells whether m compares with a Grafana variable rather than
// with a value written in the query.
func Variable(m *labels.Matcher) bool { return strings.Contains(m.Value, variable) }

// Selectors parses expr (Grafana variables substituted) and returns its
// vector selectors in the order they appear.
func Selectors(expr string) ([]Selector, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(grafanaVars.Replace(expr))
	if err != nil {
		return nil, err
	}
	var out []Selector
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		sel := Selector{Metric: vs.Name}
		for _, m := range vs.LabelMatchers {
			if m.Name == model.MetricNameLabel {
				if sel.Metric == "" {
					sel.Metric = m.Value
				}
				continue
			}
			sel.Matchers = append(sel.Matchers, m)
		}
		out = append(out, sel)
		return nil
	})
	return out, nil
}

// Metrics parses expr (Grafana variables substituted) and returns the
// metric names its selectors name.
func Metrics(expr string) ([]string, error) {
	sels, err := Selectors(expr)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, s := range sels {
		seen[s.Metric] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

var declared = regexp.MustCompile(`Name:\s*"(sharedworld_[a-z0-9_]+)"`)

// Declared lists the metric names the Go code under dirs declares
// (collector options `Name: "sharedworld_..."`).
func Declared(dirs ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range declared.FindAllStringSubmatch(string(raw), -1) {
				out[m[1]] = path
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
