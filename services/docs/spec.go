package docs

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// specYAML is the hand-written OpenAPI 3.1 document of the whole world.
//
//go:embed openapi.yaml
var specYAML []byte

// Spec is the loaded OpenAPI document with the parts other documents reuse.
type Spec struct {
	// Doc is the document with every $ref resolved.
	Doc *openapi3.T
	// JSON is the document as served at /openapi.json.
	JSON []byte
	// Limits are the `x-limits` of the document, in name order.
	Limits []Limit
}

// Limit is one entry of the document's `x-limits`.
type Limit struct {
	Name      string `json:"-"`
	Value     int64  `json:"value"`
	AppliesTo string `json:"applies_to"`
	Error     string `json:"error,omitempty"`
}

var (
	specOnce sync.Once
	spec     *Spec
	specErr  error
)

// LoadSpec parses and validates the embedded document once per process.
func LoadSpec() (*Spec, error) {
	specOnce.Do(func() { spec, specErr = parseSpec(specYAML) })
	return spec, specErr
}

// SourceYAML returns the document as written.
func SourceYAML() []byte { return append([]byte(nil), specYAML...) }

func parseSpec(src []byte) (*Spec, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(src)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("validate the OpenAPI document: %w", err)
	}
	raw, err := encodeDoc(doc)
	if err != nil {
		return nil, fmt.Errorf("encode the OpenAPI document: %w", err)
	}
	limits, err := parseLimits(doc.Extensions["x-limits"])
	if err != nil {
		return nil, err
	}
	return &Spec{Doc: doc, JSON: raw, Limits: limits}, nil
}

// encodeDoc writes the document as compact JSON that keeps <, > and & as
// they are (descriptions are full of `plot_x<X>_y<Y>`), with numbers exact.
func encodeDoc(doc *openapi3.T) ([]byte, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

func parseLimits(ext any) ([]Limit, error) {
	raw, err := json.Marshal(ext)
	if err != nil {
		return nil, fmt.Errorf("x-limits: %w", err)
	}
	var byName map[string]Limit
	if err := json.Unmarshal(raw, &byName); err != nil || len(byName) == 0 {
		return nil, fmt.Errorf("x-limits must map names to {value, applies_to, error}: %w", err)
	}
	out := make([]Limit, 0, len(byName))
	for name, l := range byName {
		l.Name = name
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
