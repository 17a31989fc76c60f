package attack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Operation is one documented operation of the OpenAPI document the world
// serves at /openapi.json.
type Operation struct {
	Method, Path string   // path with {params}
	Params       []string // query parameter names and component refs
	Body         bool     // it takes a request body
	Fields       []string // the properties of its JSON request body
}

// Document is what the attacks read of /openapi.json: the operations and
// the x-limits values.
type Document struct {
	Operations []Operation
	Limits     map[string]float64
}

// ReadDocument fetches and reads the world's OpenAPI document.
func ReadDocument(client *http.Client, base string) (Document, error) {
	resp, err := client.Get(base + "/openapi.json")
	if err != nil {
		return Document{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Document{}, fmt.Errorf("GET /openapi.json: %s", resp.Status)
	}
	var doc struct {
		Paths  map[string]map[string]json.RawMessage `json:"paths"`
		Limits map[string]struct {
			Value float64 `json:"value"`
		} `json:"x-limits"`
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return Document{}, fmt.Errorf("read /openapi.json: %w", err)
	}
	out := Document{Limits: map[string]float64{}}
	for name, l := range doc.Limits {
		out.Limits[name] = l.Value
	}
	for p, methods := range doc.Paths {
		for m, raw := range methods {
			var op struct {
				Parameters []struct {
					Name string `json:"name"`
					Ref  string `json:"$ref"`
				} `json:"parameters"`
				RequestBody *struct {
					Content map[string]struct {
						Schema schema `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			}
			if json.Unmarshal(raw, &op) != nil {
				continue // not an operation (a path's own parameters)
			}
			o := Operation{Method: strings.ToUpper(m), Path: p, Body: op.RequestBody != nil}
			if op.RequestBody != nil {
				sc := op.RequestBody.Content["application/json"].Schema
				if sc.Ref != "" {
					sc = doc.Components.Schemas[sc.Ref[strings.LastIndex(sc.Ref, "/")+1:]]
				}
				for name := range sc.Properties {
					o.Fields = append(o.Fields, name)
				}
				sort.Strings(o.Fields)
			}
			for _, prm := range op.Parameters {
				o.Params = append(o.Params, prm.Name+prm.Ref[strings.LastIndex(prm.Ref, "/")+1:])
			}
			out.Operations = append(out.Operations, o)
		}
	}
	sort.Slice(out.Operations, func(i, j int) bool {
		a, b := out.Operations[i], out.Operations[j]
		return a.Path+a.Method < b.Path+b.Method
	})
	return out, nil
}

// schema is what the attacks read of a JSON schema: its properties.
type schema struct {
	Ref        string                     `json:"$ref"`
	Properties map[string]json.RawMessage `json:"properties"`
}

// Takes reports whether the operation takes the named parameter (a query
// parameter's name or a component's, such as Limit or Cursor).
func (o Operation) Takes(name string) bool {
	for _, p := range o.Params {
		if strings.EqualFold(p, name) {
			return true
		}
	}
	return false
}

// Fill puts value into every {param} of a documented path.
func Fill(p, value string) string {
	for strings.Contains(p, "{") {
		i, j := strings.Index(p, "{"), strings.Index(p, "}")
		p = p[:i] + value + p[j+1:]
	}
	return p
}

// ByPath groups the methods each documented path serves.
func ByPath(ops []Operation) map[string][]string {
	served := map[string][]string{}
	for _, op := range ops {
		served[op.Path] = append(served[op.Path], op.Method)
	}
	return served
}

// Limit is a documented x-limits value, or def when the document lacks it.
func (d Document) Limit(name string, def float64) float64 {
	if v, ok := d.Limits[name]; ok {
		return v
	}
	return def
}
