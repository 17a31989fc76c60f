package testkit

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// ContractClient is an HTTP client for a test that calls a running world
// over the network: every answer it receives is held to the OpenAPI
// document (CheckContract) before the test reads it.
func ContractClient(t testing.TB) *http.Client {
	return &http.Client{Transport: ContractTransport(t, nil)}
}

// ContractTransport checks every answer next (http.DefaultTransport when
// nil) returns against the OpenAPI document. A live stream (text/event-
// stream) is passed on unread: it has no end to check at.
func ContractTransport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return contractTransport{t: t, next: next}
}

type contractTransport struct {
	t    testing.TB
	next http.RoundTripper
}

func (c contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	CheckContract(c.t, req.Method, req.URL.RequestURI(), resp.StatusCode, resp.Header, body)
	return resp, nil
}
