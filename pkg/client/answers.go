package client

import (
	"context"
	"encoding/json"
	"net/url"
	"sync"
)

// Answers keeps the world's answers, byte for byte, to the calls made with
// a context from RecordAnswers: a program that prints what the world said
// (worldctl -o json) passes it through instead of re-encoding the client's
// types, so no field the types lack is lost.
type Answers struct {
	mu     sync.Mutex
	bodies []json.RawMessage
}

type answersKey struct{}

// RecordAnswers returns a context whose calls' 2xx answers are kept in the
// returned Answers, in order.
func RecordAnswers(ctx context.Context) (context.Context, *Answers) {
	a := &Answers{}
	return context.WithValue(ctx, answersKey{}, a), a
}

// All is every answer recorded, oldest first.
func (a *Answers) All() []json.RawMessage {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]json.RawMessage(nil), a.bodies...)
}

// Last is the latest answer, or nil.
func (a *Answers) Last() json.RawMessage {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.bodies) == 0 {
		return nil
	}
	return a.bodies[len(a.bodies)-1]
}

func recordAnswer(ctx context.Context, raw []byte) {
	a, _ := ctx.Value(answersKey{}).(*Answers)
	if a == nil || !json.Valid(raw) {
		return
	}
	a.mu.Lock()
	a.bodies = append(a.bodies, append(json.RawMessage(nil), raw...))
	a.mu.Unlock()
}

// Call sends one request to any route of the world and returns its answer
// as the world wrote it: what a program does that maps routes to its own
// shapes (the MCP server's tools). It carries the agent's credentials and
// signature when the client has an identity, the ambassador's token when
// it has only that, and neither otherwise; query is sent as the query
// string, body (when not nil) as JSON. Retries and errors are those of
// every other method.
func (c *Client) Call(ctx context.Context, method, path string, query url.Values, body any) (json.RawMessage, error) {
	k := call{method: method, path: path, query: query, body: body, auth: optionalAuth}
	if c.identity == nil && c.token != "" {
		k.auth = ambassador
	}
	var out json.RawMessage
	if err := c.do(ctx, k, &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		out = json.RawMessage(`{"ok":true}`)
	}
	return out, nil
}
