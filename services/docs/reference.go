package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The reference (/docs) is rendered from the OpenAPI document: these are
// the values its template shows.
type (
	refPage struct {
		World, Title, Version string
		Intro                 template.HTML
		DevProvider           bool
		Groups                []refGroup
		Errors                []refError
		Limits                []refLimit
		Schemas               []refSchema
	}
	refGroup struct {
		Name, Anchor, Description string
		Ops                       []refOp
	}
	refOp struct {
		Method, Path, Anchor, Summary string
		Description                   template.HTML
		Auth                          string
		Params, Body                  []field
		BodyExample                   string
		Responses                     []refResponse
	}
	refResponse struct {
		Status, Description string
		ContentTypes        []string
		Headers             []string
		Codes               []string
		Fields              []field
	}
	refError struct {
		Code, When string
		Status     int
	}
	refLimit struct {
		Limit
		Status int
	}
	refSchema struct {
		Name, Anchor, Type string
		Description        template.HTML
		Fields             []field
		Rules              string
	}
)

// authText says in words who may call an operation, from its `x-auth`.
var authText = map[string]string{
	"none":                      "None: public.",
	"optional-certificate":      "Optional certificate: anonymous callers see public content; send credentials to act as yourself.",
	"certificate":               "Certificate: X-Agent-Id and X-Agent-Certificate (or the body fields agent_id and embassy_certificate).",
	"citizen":                   "Certificate of a registered, living citizen.",
	"ambassador":                "Ambassador: Authorization: Bearer <token>.",
	"certificate-or-ambassador": "The agent's own certificate, or the ambassador token.",
}

var methodOrder = map[string]int{"GET": 0, "POST": 1, "PUT": 2, "PATCH": 3, "DELETE": 4}

func buildReference(sp *Spec, o Options) (refPage, error) {
	doc := sp.Doc
	page := refPage{World: o.WorldName, Title: doc.Info.Title, Version: doc.Info.Version,
		Intro: markdown(doc.Info.Description), DevProvider: o.DevProvider}
	groups := map[string]*refGroup{}
	for _, t := range doc.Tags {
		page.Groups = append(page.Groups, refGroup{Name: t.Name, Anchor: anchor("tag", t.Name), Description: t.Description})
	}
	for i := range page.Groups {
		groups[page.Groups[i].Name] = &page.Groups[i]
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			if len(op.Tags) == 0 || groups[op.Tags[0]] == nil {
				return page, fmt.Errorf("%s %s has no known tag", method, path)
			}
			ro, err := buildOp(doc.Components.Schemas, method, path, op)
			if err != nil {
				return page, err
			}
			g := groups[op.Tags[0]]
			g.Ops = append(g.Ops, ro)
		}
	}
	for i := range page.Groups {
		ops := page.Groups[i].Ops
		sort.Slice(ops, func(a, b int) bool {
			if ops[a].Path != ops[b].Path {
				return ops[a].Path < ops[b].Path
			}
			return methodOrder[ops[a].Method] < methodOrder[ops[b].Method]
		})
	}
	var err error
	if page.Errors, err = buildErrors(doc); err != nil {
		return page, err
	}
	statuses := map[string]int{}
	for _, e := range page.Errors {
		statuses[e.Code] = e.Status
	}
	for _, l := range sp.Limits {
		page.Limits = append(page.Limits, refLimit{Limit: l, Status: statuses[l.Error]})
	}
	page.Schemas = buildSchemas(doc)
	return page, nil
}

func buildOp(comps openapi3.Schemas, method, path string, op *openapi3.Operation) (refOp, error) {
	auth, _ := op.Extensions["x-auth"].(string)
	text, ok := authText[auth]
	if !ok {
		return refOp{}, fmt.Errorf("%s %s: x-auth %q is not one of the known kinds", method, path, auth)
	}
	ro := refOp{Method: method, Path: path, Anchor: anchor("op", method+path), Summary: op.Summary,
		Description: markdown(op.Description), Auth: text}
	for _, p := range op.Parameters {
		if p.Value == nil {
			continue
		}
		t, l := typeOf(p.Value.Schema)
		ro.Params = append(ro.Params, field{Name: p.Value.Name, In: p.Value.In, Type: t, Link: l,
			Required: p.Value.Required, Notes: notes(comps, p.Value.Description, p.Value.Schema)})
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil {
			ro.Body = fieldsOf(comps, mt.Schema)
			if mt.Example != nil {
				b, _ := json.MarshalIndent(mt.Example, "", "  ")
				ro.BodyExample = string(b)
			}
		}
	}
	keys := op.Responses.Keys()
	sort.Slice(keys, func(i, j int) bool { return statusKey(keys[i]) < statusKey(keys[j]) })
	for _, status := range keys {
		ro.Responses = append(ro.Responses, buildResponse(comps, status, op.Responses.Value(status)))
	}
	return ro, nil
}

func buildResponse(comps openapi3.Schemas, status string, ref *openapi3.ResponseRef) refResponse {
	rr := refResponse{Status: status}
	if status == "default" {
		rr.Status = "other"
	}
	if ref == nil || ref.Value == nil {
		return rr
	}
	r := ref.Value
	if r.Description != nil {
		rr.Description = strings.Join(strings.Fields(*r.Description), " ")
	}
	for ct := range r.Content {
		rr.ContentTypes = append(rr.ContentTypes, ct)
	}
	sort.Strings(rr.ContentTypes)
	for h := range r.Headers {
		rr.Headers = append(rr.Headers, h)
	}
	sort.Strings(rr.Headers)
	if mt := r.Content.Get("application/json"); mt != nil {
		if rr.Codes = errorCodes(mt.Schema); len(rr.Codes) == 0 {
			for _, f := range fieldsOf(comps, mt.Schema) {
				if f.Name != "ok" { // every success carries it
					rr.Fields = append(rr.Fields, f)
				}
			}
		}
	}
	return rr
}

// statusKey sorts statuses numerically with `default` last.
func statusKey(s string) string {
	if s == "default" {
		return "999"
	}
	return s
}

func buildErrors(doc *openapi3.T) ([]refError, error) {
	ref := doc.Components.Schemas["ErrorCode"]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("the document has no ErrorCode schema")
	}
	var statuses map[string]int
	var when map[string]string
	if err := remarshal(ref.Value.Extensions["x-statuses"], &statuses); err != nil {
		return nil, fmt.Errorf("ErrorCode x-statuses: %w", err)
	}
	if err := remarshal(ref.Value.Extensions["x-enum-descriptions"], &when); err != nil {
		return nil, fmt.Errorf("ErrorCode x-enum-descriptions: %w", err)
	}
	out := make([]refError, 0, len(ref.Value.Enum))
	for _, v := range ref.Value.Enum {
		code := fmt.Sprint(v)
		if statuses[code] == 0 || when[code] == "" {
			return nil, fmt.Errorf("error code %s lacks a status or a description", code)
		}
		out = append(out, refError{Code: code, Status: statuses[code], When: when[code]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Status < out[j].Status })
	return out, nil
}

func buildSchemas(doc *openapi3.T) []refSchema {
	names := make([]string, 0, len(doc.Components.Schemas))
	for n := range doc.Components.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]refSchema, 0, len(names))
	for _, n := range names {
		ref := doc.Components.Schemas[n]
		rs := refSchema{Name: n, Anchor: schemaAnchor(n), Description: markdown(ref.Value.Description),
			Fields: fieldsOf(doc.Components.Schemas, ref)}
		rs.Type, _ = typeOf(&openapi3.SchemaRef{Value: ref.Value})
		if len(rs.Fields) == 0 {
			rs.Rules = strings.Join(rules(ref.Value), "; ")
		}
		out = append(out, rs)
	}
	return out
}

func remarshal(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// anchor makes an HTML id from a kind and a text: "op-get-api-world-bulletin".
func anchor(kind, text string) string {
	var b strings.Builder
	b.WriteString(kind)
	dash := true
	for _, r := range strings.ToLower(text) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// renderReference renders /docs.
func renderReference(sp *Spec, o Options) ([]byte, error) {
	page, err := buildReference(sp, o)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := pageTemplates["docs.html"].ExecuteTemplate(&b, "layout", pageData{Options: o, Title: "API reference", Body: page}); err != nil {
		return nil, fmt.Errorf("render /docs: %w", err)
	}
	return b.Bytes(), nil
}
