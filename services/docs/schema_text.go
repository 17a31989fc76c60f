package docs

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

const schemaRefPrefix = "#/components/schemas/"

// field is one row of a field table in the reference.
type field struct {
	Name     string
	In       string // query, path, header (parameters only)
	Type     string
	Link     string // anchor of the schema the type names, if any
	Required bool
	Notes    string // rules and description, plain text with `code`
}

// typeOf names a schema for a person: its component name when it has one,
// else "array of X", "string or null", "one of: a, b", ...
func typeOf(ref *openapi3.SchemaRef) (text, link string) {
	if ref == nil {
		return "any", ""
	}
	if name, ok := strings.CutPrefix(ref.Ref, schemaRefPrefix); ok {
		return name, schemaAnchor(name)
	}
	s := ref.Value
	if s == nil {
		return "any", ""
	}
	switch {
	case s.Const != nil:
		return "constant " + jsonText(s.Const), ""
	case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		var names []string
		for _, alt := range append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...) {
			t, _ := typeOf(alt)
			names = append(names, t)
		}
		return strings.Join(names, " or "), ""
	case len(s.AllOf) > 0 && s.Type == nil:
		t, l := typeOf(s.AllOf[0])
		return t, l
	}
	var types []string
	if s.Type != nil {
		types = append(types, (*s.Type)...)
	}
	for i, t := range types {
		switch {
		case t == "array":
			inner, l := typeOf(s.Items)
			types[i] = "array of " + inner
			link = l
		case t != "null" && s.Format != "":
			types[i] = t + " (" + s.Format + ")"
		}
	}
	if len(types) == 0 {
		return "any", ""
	}
	return strings.Join(types, " or "), link
}

// rules states a schema's constraints in words.
func rules(s *openapi3.Schema) []string {
	if s == nil {
		return nil
	}
	var out []string
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = "`" + jsonScalar(v) + "`"
		}
		out = append(out, "one of "+strings.Join(vals, ", "))
	}
	switch {
	case s.MinLength == 1:
		out = append(out, "not empty")
	case s.MinLength > 1:
		out = append(out, fmt.Sprintf("at least %d characters", s.MinLength))
	}
	if s.MaxLength != nil {
		out = append(out, fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if s.Min != nil {
		out = append(out, "at least "+number(*s.Min))
	}
	if s.Max != nil {
		out = append(out, "at most "+number(*s.Max))
	}
	if s.MaxItems != nil {
		out = append(out, fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	if s.Items != nil && s.Items.Value != nil && !isObject(s.Items.Value) {
		for _, r := range rules(s.Items.Value) {
			out = append(out, "each "+r)
		}
	}
	if s.Pattern != "" {
		out = append(out, "pattern `"+s.Pattern+"`")
	}
	if s.ContentEncoding != "" {
		out = append(out, s.ContentEncoding+" encoded")
	}
	if s.Default != nil {
		out = append(out, "default `"+jsonScalar(s.Default)+"`")
	}
	return out
}

// isObject reports whether a schema describes an object with fields.
func isObject(s *openapi3.Schema) bool {
	return len(s.Properties) > 0 || len(s.AllOf) > 0 || s.Type.Is("object")
}

// notes joins a field's description and rules. A field that names a
// component object links to it and adds only its own words; a field that
// names a component scalar (an id, an enum) repeats the scalar's rules.
func notes(comps openapi3.Schemas, description string, ref *openapi3.SchemaRef) string {
	var rs []string
	if ref != nil && ref.Value != nil {
		name, isRef := strings.CutPrefix(ref.Ref, schemaRefPrefix)
		own := !isRef
		if comp := comps[name]; isRef && comp != nil && comp.Value != nil {
			// The value differs from the component's when the document wrote
			// keywords next to the $ref (OpenAPI 3.1): those are the field's own.
			own = ref.Value.Description != comp.Value.Description
		}
		scalarRef := isRef && !isObject(ref.Value)
		if description == "" && (own || scalarRef) {
			description = ref.Value.Description
		}
		if !isRef || scalarRef {
			rs = rules(ref.Value)
		}
		if scalarRef && description != "" {
			// The component's words say what its pattern says, more kindly.
			rs = slices.DeleteFunc(rs, func(r string) bool { return strings.HasPrefix(r, "pattern ") })
		}
	}
	parts := []string{}
	if d := strings.TrimSpace(description); d != "" {
		parts = append(parts, strings.Join(strings.Fields(d), " "))
	}
	if len(rs) > 0 {
		parts = append(parts, capitalize(strings.Join(rs, "; "))+".")
	}
	return strings.Join(parts, " ")
}

// fieldsOf lists the properties of an object schema, allOf parts included,
// by name.
func fieldsOf(comps openapi3.Schemas, ref *openapi3.SchemaRef) []field {
	props := map[string]*openapi3.SchemaRef{}
	required := map[string]bool{}
	collectProperties(ref, props, required, 0)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]field, 0, len(names))
	for _, n := range names {
		p := props[n]
		t, l := typeOf(p)
		out = append(out, field{Name: n, Type: t, Link: l, Required: required[n], Notes: notes(comps, "", p)})
	}
	return out
}

func collectProperties(ref *openapi3.SchemaRef, props map[string]*openapi3.SchemaRef, required map[string]bool, depth int) {
	if ref == nil || ref.Value == nil || depth > 8 {
		return
	}
	s := ref.Value
	for name, p := range s.Properties {
		if _, seen := props[name]; !seen {
			props[name] = p
		}
	}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, part := range s.AllOf {
		collectProperties(part, props, required, depth+1)
	}
}

// errorCodes returns the codes an error response names: the `error` enum of
// its schema, narrowed by allOf parts.
func errorCodes(ref *openapi3.SchemaRef) []string {
	if ref == nil || ref.Value == nil {
		return nil
	}
	var codes []string
	for _, part := range ref.Value.AllOf {
		if part.Value == nil {
			continue
		}
		if e, ok := part.Value.Properties["error"]; ok && e.Value != nil && !strings.HasPrefix(e.Ref, schemaRefPrefix) {
			for _, v := range e.Value.Enum {
				codes = append(codes, fmt.Sprint(v))
			}
		}
	}
	return codes
}

func schemaAnchor(name string) string { return "schema-" + name }

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonScalar shows strings bare and everything else as JSON.
func jsonScalar(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonText(v)
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
