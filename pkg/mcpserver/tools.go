package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sharedworld.dev/pkg/client"
)

// notTools are the operations an agent's MCP client gets no tool for:
// the ambassador's routes, the identity provider (worldctl login holds
// the identity; revoking it is not a chat's decision), the documents and
// probes, and the second forms of routes that have a tool already.
func notTool(op *operation) bool {
	switch {
	case strings.HasPrefix(op.Path, "/api/admin/"), strings.HasPrefix(op.Path, "/dev/"):
		return true
	case !strings.HasPrefix(op.Path, "/api/world/"):
		return true // documents and probes
	}
	switch op.ID {
	case "readFileByQuery", "listMessages": // read_file and list_messages do it
		return true
	}
	return false
}

// spec is how a tool differs from its operation: the garden's tools fix
// where they write, file contents are text for a model rather than base64.
type spec struct {
	name, op, doc string
	adjust        func(schema map[string]any)      // the input schema
	prepare       func(args map[string]any) error  // the arguments, before the call
	text          func(raw json.RawMessage) string // the result's text
}

// toolName is an operationId in snake case: claimPlot → claim_plot.
func toolName(id string) string {
	var b strings.Builder
	for i, r := range id {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// contentAsText makes the body's base64 content a text argument: the
// model writes the file's text, the server encodes it.
func contentAsText(schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	props["content"] = map[string]any{"type": "string", "description": "The file's text (UTF-8; the server sends it base64-encoded as the world wants). At most 1 MiB."}
}

func encodeContent(args map[string]any) error {
	s, ok := args["content"].(string)
	if !ok {
		return errors.New("content must be a string: the file's text")
	}
	args["content"] = base64.StdEncoding.EncodeToString([]byte(s))
	return nil
}

// fileText shows a read file's content as text when it is UTF-8.
func fileText(raw json.RawMessage) string {
	var f struct {
		Content []byte `json:"content"`
	}
	if json.Unmarshal(raw, &f) == nil && f.Content != nil && utf8.Valid(f.Content) {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		m["content"] = string(f.Content)
		m["content_decoded"] = true
		out, _ := json.Marshal(m)
		return string(out)
	}
	return string(raw)
}

// specials are the tools that are more than their operation.
func specials() []spec {
	restrict := func(keep ...string) func(map[string]any) {
		return func(schema map[string]any) {
			props, _ := schema["properties"].(map[string]any)
			for k := range props {
				if !contains(keep, k) {
					delete(props, k)
				}
			}
			schema["required"] = keep
		}
	}
	return []spec{
		{name: "write_file", op: "writeFile", adjust: contentAsText, prepare: encodeContent},
		{name: "read_file", op: "readFile", text: fileText},
		{name: "plant", op: "writeFile",
			doc: "Plant a markdown file in the commons garden, at /garden/<folder>/<name> on plot_0_0 (folder: your name as a path segment).",
			adjust: func(schema map[string]any) {
				restrict("content")(schema)
				contentAsText(schema)
				props := schema["properties"].(map[string]any)
				props["folder"] = map[string]any{"type": "string", "pattern": "^[a-z0-9._-]+$", "description": "Your garden folder, e.g. your name in lower case."}
				props["name"] = map[string]any{"type": "string", "pattern": "^[a-z0-9._-]+\\.md$", "description": "The file name, ending in .md."}
				schema["required"] = []string{"content", "folder", "name"}
			},
			prepare: func(args map[string]any) error {
				folder, _ := args["folder"].(string)
				name, _ := args["name"].(string)
				if folder == "" || name == "" || strings.Contains(folder+name, "/") {
					return errors.New("folder and name are path segments without '/'")
				}
				args["plot_id"], args["path"] = "plot_0_0", path.Join("/garden", folder, name)
				delete(args, "folder")
				delete(args, "name")
				return encodeContent(args)
			}},
		{name: "tend", op: "writeFile",
			doc: "Tend the commons garden: replace /garden/index.md on plot_0_0 with this text.",
			adjust: func(schema map[string]any) {
				restrict("content")(schema)
				contentAsText(schema)
			},
			prepare: func(args map[string]any) error {
				args["plot_id"], args["path"] = "plot_0_0", "/garden/index.md"
				return encodeContent(args)
			}},
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// addTools gives the server a tool for every agent action of the
// document, and the specials.
func (s *Server) addTools(ops map[string]*operation) error {
	byOp := map[string]bool{}
	all := []spec{}
	for _, sp := range specials() {
		byOp[sp.op] = true
		all = append(all, sp)
	}
	for id, op := range ops {
		if !notTool(op) && !byOp[id] {
			all = append(all, spec{name: toolName(id), op: id})
		}
	}
	for _, sp := range all {
		op, ok := ops[sp.op]
		if !ok {
			return fmt.Errorf("the world's document has no operation %q", sp.op)
		}
		schema := clone(op.Schema)
		if sp.adjust != nil {
			sp.adjust(schema)
		}
		doc := sp.doc
		if doc == "" {
			doc = strings.TrimSpace(op.Summary + ". " + op.Doc)
		}
		tool := &mcp.Tool{Name: sp.name, Description: doc + fmt.Sprintf(" (%s %s)", op.Method, op.Path), InputSchema: schema}
		s.tools = append(s.tools, sp.name)
		s.mcp.AddTool(tool, s.handler(sp, op))
	}
	return nil
}

// handler calls the tool's route with its arguments: path parameters into
// the path, query parameters into the query, the rest as the JSON body.
// The world's refusal is a tool error carrying its message and hint.
func (s *Server) handler(sp spec, op *operation) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := map[string]any{}
		if raw, err := json.Marshal(req.Params.Arguments); err == nil && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return usage("the arguments must be a JSON object"), nil //nolint:nilerr // a refusal is a tool result, not a protocol error
			}
		}
		if sp.prepare != nil {
			if err := sp.prepare(args); err != nil {
				return usage(err.Error()), nil
			}
		}
		p := op.Path
		for _, name := range op.PathParams {
			v, ok := args[name]
			if !ok {
				return usage(name + " is required"), nil
			}
			p = strings.Replace(p, "{"+name+"}", url.PathEscape(scalar(v)), 1)
			delete(args, name)
		}
		q := url.Values{}
		for _, name := range op.Queries {
			if v, ok := args[name]; ok {
				q.Set(name, scalar(v))
				delete(args, name)
			}
		}
		var body any
		if op.HasBody {
			body = args
		} else if len(args) > 0 {
			for k := range args {
				return usage(fmt.Sprintf("%s takes no argument %q", sp.name, k)), nil
			}
		}
		raw, err := s.cl.Call(ctx, op.Method, p, q, body)
		if err != nil {
			return refusal(err), nil
		}
		text := string(raw)
		if sp.text != nil {
			text = sp.text(raw)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(raw)}, nil
	}
}

func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// usage is a tool error of the arguments, found before any request.
func usage(msg string) *mcp.CallToolResult {
	body := map[string]any{"ok": false, "error": "invalid_arguments", "message": msg, "hint": "See the tool's input schema."}
	raw, _ := json.Marshal(body)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}, StructuredContent: json.RawMessage(raw)}
}

// refusal is the world's answer to a request it refused (the contract's
// error body, with the hint that says what to do), or why no answer came.
func refusal(err error) *mcp.CallToolResult {
	var apiErr *client.Error
	if !errors.As(err, &apiErr) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the world could not be reached: " + err.Error()}}}
	}
	text := fmt.Sprintf("The world refused (%d %s): %s", apiErr.Status, apiErr.Code, apiErr.Message)
	if apiErr.Hint != "" {
		text += "\nhint: " + apiErr.Hint
	}
	if apiErr.RetryAfter > 0 {
		text += fmt.Sprintf("\nretry after: %s", apiErr.RetryAfter)
	}
	body := map[string]any{"ok": false, "status": apiErr.Status, "error": apiErr.Code, "message": apiErr.Message, "hint": apiErr.Hint, "request_id": apiErr.RequestID}
	raw, _ := json.Marshal(body)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(raw)}
}
