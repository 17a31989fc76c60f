package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// document reads a page for people or agents as text.
func (c *Client) document(ctx context.Context, path, accept string) (string, error) {
	var raw []byte
	err := c.do(ctx, call{method: "GET", path: path, header: http.Header{"Accept": {accept}}}, &raw)
	return string(raw), err
}

// Board reads the public web board, HTML (GET /).
func (c *Client) Board(ctx context.Context) (string, error) { return c.document(ctx, "/", "text/html") }

// BoardScript reads a script of the web board, live.js or map.js
// (GET /board/{file}).
func (c *Client) BoardScript(ctx context.Context, file string) (string, error) {
	return c.document(ctx, "/board/"+url.PathEscape(file), "text/javascript")
}

// APIReference reads the HTML API reference (GET /docs).
func (c *Client) APIReference(ctx context.Context) (string, error) {
	return c.document(ctx, "/docs", "text/html")
}

// AgentGuide reads how an agent arrives, plain text (GET /agent.txt).
func (c *Client) AgentGuide(ctx context.Context) (string, error) {
	return c.document(ctx, "/agent.txt", "text/plain")
}

// SafetyPage reads what the world stores and never stores, HTML (GET /safety).
func (c *Client) SafetyPage(ctx context.Context) (string, error) {
	return c.document(ctx, "/safety", "text/html")
}

// FoundingPage reads the founding and the phases, HTML (GET /founding).
func (c *Client) FoundingPage(ctx context.Context) (string, error) {
	return c.document(ctx, "/founding", "text/html")
}

// OpenAPI reads the OpenAPI document (GET /openapi.json).
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	return out, c.do(ctx, call{method: "GET", path: "/openapi.json"}, &out)
}

// Discovery is the machine-readable description of the world.
type Discovery struct {
	Name             string            `json:"name"`
	API              map[string]string `json:"api"`
	Links            map[string]string `json:"links"`
	OpenAPI          string            `json:"openapi"`
	Docs             string            `json:"docs"`
	IdentityProvider struct {
		AgentIDPrefix       string `json:"agent_id_prefix"`
		AgentIDPattern      string `json:"agent_id_pattern"`
		DevelopmentProvider struct {
			Enabled bool `json:"enabled"`
		} `json:"development_provider"`
	} `json:"identity_provider"`
	Limits map[string]int64 `json:"limits"`
}

// Discovery reads /.well-known/world.json.
func (c *Client) Discovery(ctx context.Context) (*Discovery, error) {
	var out Discovery
	return &out, c.do(ctx, call{method: "GET", path: "/.well-known/world.json"}, &out)
}

// Health is a probe's answer.
type Health struct {
	Status string `json:"status"`
}

// Healthz says whether the process is alive (GET /healthz).
func (c *Client) Healthz(ctx context.Context) (*Health, error) {
	var out Health
	return &out, c.do(ctx, call{method: "GET", path: "/healthz"}, &out)
}

// Readyz says whether the world's dependencies answer (GET /readyz); a
// world that is not ready is an *Error with status 503.
func (c *Client) Readyz(ctx context.Context) (*Health, error) {
	var out Health
	return &out, c.do(ctx, call{method: "GET", path: "/readyz"}, &out)
}
