package mcpserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// document is what the server reads of the world's /openapi.json.
type document struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas    map[string]json.RawMessage `json:"schemas"`
		Parameters map[string]json.RawMessage `json:"parameters"`
	} `json:"components"`
}

// operation is one route of the document, with the input schema a tool of
// it takes: its path and query parameters and its JSON body's properties
// in one object, every $ref resolved (an MCP client sees no components).
type operation struct {
	ID, Method, Path    string
	Summary, Doc        string
	PathParams, Queries []string
	HasBody             bool
	Schema              map[string]any
}

func parseDocument(raw []byte) (map[string]*operation, error) {
	var doc document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("the world's /openapi.json is not an OpenAPI document: %w", err)
	}
	ops := map[string]*operation{}
	for path, item := range doc.Paths {
		for method, rawOp := range item {
			switch method {
			case "get", "post", "put", "patch", "delete":
			default:
				continue
			}
			var o struct {
				OperationID string            `json:"operationId"`
				Summary     string            `json:"summary"`
				Description string            `json:"description"`
				Parameters  []json.RawMessage `json:"parameters"`
				RequestBody *struct {
					Content map[string]struct {
						Schema json.RawMessage `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			}
			if err := json.Unmarshal(rawOp, &o); err != nil || o.OperationID == "" {
				continue
			}
			op := &operation{ID: o.OperationID, Method: strings.ToUpper(method), Path: path, Summary: o.Summary, Doc: o.Description}
			props := map[string]any{}
			required := []string{}
			for _, rawParam := range o.Parameters {
				p, _ := doc.resolve(rawParam, 0).(map[string]any)
				name, _ := p["name"].(string)
				in, _ := p["in"].(string)
				if name == "" || (in != "path" && in != "query") {
					continue // headers are the client's business
				}
				schema, _ := p["schema"].(map[string]any)
				if schema == nil {
					schema = map[string]any{"type": "string"}
				}
				if d, ok := p["description"].(string); ok && schema["description"] == nil {
					schema["description"] = d
				}
				props[name] = schema
				if in == "path" {
					op.PathParams = append(op.PathParams, name)
					required = append(required, name)
				} else {
					op.Queries = append(op.Queries, name)
					if req, _ := p["required"].(bool); req {
						required = append(required, name)
					}
				}
			}
			if o.RequestBody != nil {
				if c, ok := o.RequestBody.Content["application/json"]; ok {
					op.HasBody = true
					body, _ := doc.resolve(c.Schema, 0).(map[string]any)
					if bp, ok := body["properties"].(map[string]any); ok {
						for k, v := range bp {
							props[k] = v
						}
					}
					if br, ok := body["required"].([]any); ok {
						for _, r := range br {
							if s, ok := r.(string); ok {
								required = append(required, s)
							}
						}
					}
				}
			}
			sort.Strings(required)
			op.Schema = map[string]any{"type": "object", "properties": props}
			if len(required) > 0 {
				op.Schema["required"] = required
			}
			ops[op.ID] = op
		}
	}
	return ops, nil
}

// resolve decodes raw with every "$ref" to the document's components
// replaced by what it names (depth-limited: the document has no cycles an
// input needs, and a cycle must not hang the server).
func (d *document) resolve(raw json.RawMessage, depth int) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	return d.inline(v, depth)
}

func (d *document) inline(v any, depth int) any {
	if depth > 12 {
		return map[string]any{}
	}
	switch t := v.(type) {
	case map[string]any:
		if ref, ok := t["$ref"].(string); ok {
			var target json.RawMessage
			switch {
			case strings.HasPrefix(ref, "#/components/schemas/"):
				target = d.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
			case strings.HasPrefix(ref, "#/components/parameters/"):
				target = d.Components.Parameters[strings.TrimPrefix(ref, "#/components/parameters/")]
			}
			resolved, _ := d.resolve(target, depth+1).(map[string]any)
			if resolved == nil {
				resolved = map[string]any{}
			}
			for k, val := range t { // siblings of $ref (a description) win
				if k != "$ref" {
					resolved[k] = d.inline(val, depth+1)
				}
			}
			return resolved
		}
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[k] = d.inline(val, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = d.inline(val, depth+1)
		}
		return out
	}
	return v
}

// clone copies a schema so that a tool may change its own.
func clone(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}
