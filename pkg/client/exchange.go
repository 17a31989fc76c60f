package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Answer is the world's answer to one Exchange, whatever its status.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Exchange sends one request, once (no retries), with the credentials and
// signature Call would send, and returns the answer whatever its status:
// what a load generator or a test of refusals needs, where a 4xx is an
// outcome to count rather than an error. pathAndQuery may carry a query
// string; body (when not nil) is sent as JSON. err is a transport error
// only: no answer was read.
func (c *Client) Exchange(ctx context.Context, method, pathAndQuery string, body any) (Answer, error) {
	path, rawQuery, _ := strings.Cut(pathAndQuery, "?")
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return Answer{}, fmt.Errorf("%s %s: %w", method, pathAndQuery, err)
	}
	k := call{method: method, path: path, query: query, auth: optionalAuth}
	if c.identity == nil && c.token != "" {
		k.auth = ambassador
	}
	var raw []byte
	if body != nil {
		if raw, err = json.Marshal(body); err != nil {
			return Answer{}, fmt.Errorf("%s %s: encode the request: %w", method, path, err)
		}
	}
	actx, cancel := c.attemptContext(ctx)
	defer cancel()
	req, err := c.request(actx, k, raw)
	if err != nil {
		return Answer{}, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Answer{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{}, fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
