package testkit

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The contract check holds every answer a test receives through the kit
// (Do, ContractClient) to the world's OpenAPI document, so that handlers,
// document and client types cannot drift apart: an answer to a route of
// the document must have a status the operation declares, its declared
// headers in their schemas, a declared content type and a body of the
// declared schema. An answer to a path the document does not have that is
// an error must still be the contract's error body.
//
// The document is read, its routes built and each body schema compiled
// once per test process: kin-openapi's own body check compiles the schema
// again for every response of an OpenAPI 3.1 document, which cost more
// than the request it checked. Bodies are checked as JSON Schema 2020-12,
// the dialect of OpenAPI 3.1, against the document as served.

// contractPath is where the document lives, from the repository's root.
const contractPath = "services/docs/openapi.yaml"

// contractResource names the document for the schema compiler.
const contractResource = "https://sharedworld.dev/openapi.json"

type contract struct {
	doc      *openapi3.T
	router   routers.Router
	mu       sync.Mutex // guards compiler
	compiler *jsonschema.Compiler
	schemas  sync.Map // JSON pointer into the document → *jsonschema.Schema
}

var (
	contractOnce sync.Once
	theContract  *contract
	contractErr  error
)

// loadContract reads the document once per process.
func loadContract() (*contract, error) {
	contractOnce.Do(func() { theContract, contractErr = readContract() })
	return theContract, contractErr
}

func readContract() (*contract, error) {
	path, err := findContract()
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(src)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", contractPath, err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routes of %s: %w", contractPath, err)
	}
	// The compiler reads the document as JSON, $refs kept, as /openapi.json
	// serves it: a schema's #/components/... references resolve in it.
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	tree, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	compiler := jsonschema.NewCompiler()
	compiler.DefaultDraft(jsonschema.Draft2020)
	compiler.AssertFormat()
	if err := compiler.AddResource(contractResource, tree); err != nil {
		return nil, err
	}
	return &contract{doc: doc, router: router, compiler: compiler}, nil
}

// findContract walks up from the working directory (a test's package) to
// the repository's root.
func findContract() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, contractPath)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no %s above the working directory", contractPath)
		}
		dir = up
	}
}

// CheckContract fails t (without stopping it: it may run on another
// goroutine) when the answer (status, header, body) to method and target
// (path and query) breaks the OpenAPI document.
func CheckContract(t testing.TB, method, target string, status int, header http.Header, body []byte) {
	t.Helper()
	if err := contractMismatch(method, target, status, header, body); err != nil {
		t.Errorf("contract: %s %s answered %d: %v\nbody: %.600s", method, target, status, err, body)
	}
}

func contractMismatch(method, target string, status int, header http.Header, body []byte) error {
	c, err := loadContract()
	if err != nil {
		return err
	}
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		return fmt.Errorf("the request target is not a URL: %w", err)
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		if !errors.Is(err, routers.ErrPathNotFound) && !errors.Is(err, routers.ErrMethodNotAllowed) {
			var re *routers.RouteError
			if !errors.As(err, &re) {
				return err
			}
		}
		return c.checkUnrouted(status, header, body)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status, Header: header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: true},
	}
	// Status and headers by kin-openapi; the body by its compiled schema.
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%w (declared: %s)", err, declaredStatuses(route.Operation))
	}
	if method == http.MethodHead || status == http.StatusNotModified {
		return nil
	}
	key, ref := responseFor(route.Operation, status)
	if ref == nil || ref.Value == nil || len(ref.Value.Content) == 0 {
		return nil
	}
	if body, err = decoded(header, body); err != nil {
		return err
	}
	pointer := "/paths/" + escapePointer(route.Path) + "/" + strings.ToLower(method) + "/responses/" + escapePointer(key)
	if ref.Ref != "" {
		pointer = strings.TrimPrefix(ref.Ref, "#")
	}
	return c.checkBody(ref.Value.Content, pointer, header, body)
}

// checkUnrouted holds an error answer to a path or method the document
// does not have (404, 405) to the contract's error body.
func (c *contract) checkUnrouted(status int, header http.Header, body []byte) error {
	if status < 400 || !isJSON(header.Get("Content-Type")) {
		if status >= 400 && len(body) > 0 {
			return fmt.Errorf("an error answer with content type %q, not the JSON error body", header.Get("Content-Type"))
		}
		return nil
	}
	body, err := decoded(header, body)
	if err != nil {
		return err
	}
	return c.validate("/components/schemas/Error", body)
}

// decoded is body without its content encoding: the document describes
// the JSON a client reads once it has undone the gzip it asked for.
func decoded(header http.Header, body []byte) ([]byte, error) {
	switch enc := header.Get("Content-Encoding"); enc {
	case "", "identity":
		return body, nil
	case "gzip":
		r, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("a gzip answer that does not decode: %w", err)
		}
		plain, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("a gzip answer that does not decode: %w", err)
		}
		return plain, nil
	default:
		return nil, fmt.Errorf("content encoding %q, which no client asked for", enc)
	}
}

// checkBody checks the content type and the body against content, the
// declared content of the response at pointer in the document.
func (c *contract) checkBody(content openapi3.Content, pointer string, header http.Header, body []byte) error {
	ctype := header.Get("Content-Type")
	media := content.Get(ctype)
	if media == nil {
		return fmt.Errorf("content type %q is not declared (declared: %s)", ctype, strings.Join(sortedKeys(content), ", "))
	}
	if media.Schema == nil || !isJSON(ctype) {
		return nil // a text, HTML or event-stream answer: its type is its contract
	}
	for k, v := range content {
		if v == media {
			return c.validate(pointer+"/content/"+escapePointer(k)+"/schema", body)
		}
	}
	return nil
}

// validate checks a JSON body against the schema at pointer, compiled the
// first time it is asked for.
func (c *contract) validate(pointer string, body []byte) error {
	sch, err := c.schema(pointer)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("the body does not match %s: %w", pointer, err)
	}
	return nil
}

func (c *contract) schema(pointer string) (*jsonschema.Schema, error) {
	if s, ok := c.schemas.Load(pointer); ok {
		return s.(*jsonschema.Schema), nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.compiler.Compile(contractResource + "#" + pointer)
	if err != nil {
		return nil, fmt.Errorf("compile the schema at %s: %w", pointer, err)
	}
	c.schemas.Store(pointer, s)
	return s, nil
}

// responseFor is the declared response for status and its key in the
// operation's responses: the code, its range (4XX) or default.
func responseFor(op *openapi3.Operation, status int) (string, *openapi3.ResponseRef) {
	code := strconv.Itoa(status)
	for _, key := range []string{code, code[:1] + "XX", "default"} {
		if r := op.Responses.Value(key); r != nil {
			return key, r
		}
	}
	return "", nil
}

func declaredStatuses(op *openapi3.Operation) string {
	keys := make([]string, 0, op.Responses.Len())
	for k := range op.Responses.Map() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func sortedKeys(content openapi3.Content) []string {
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isJSON(ctype string) bool {
	base, _, _ := strings.Cut(ctype, ";")
	base = strings.TrimSpace(strings.ToLower(base))
	return base == "application/json" || strings.HasSuffix(base, "+json")
}

// escapePointer escapes a token of a JSON pointer (RFC 6901).
func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
