package httpx_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
)

// With its one write slot taken, the door answers the next write at once
// with 503, Retry-After and the contract's body, and lets reads through;
// once the slot is free a write goes in again.
func TestAdmissionRefusesWritesPastTheBoundAndPassesReads(t *testing.T) {
	a := httpx.NewApp(httpx.Options{Service: "admission-test", WritesInFlight: 1, WriteWait: 20 * time.Millisecond})
	entered, release := make(chan struct{}), make(chan struct{})
	a.Post("/slow", func(c *fiber.Ctx) error {
		entered <- struct{}{}
		<-release
		return c.SendStatus(fiber.StatusCreated)
	})
	a.Post("/fast", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusCreated) })
	a.Get("/read", func(c *fiber.Ctx) error { return c.SendString("ok") })

	held := make(chan int, 1)
	go func() {
		resp, err := a.Test(httptest.NewRequest("POST", "/slow", nil), -1)
		if err != nil {
			held <- 0
			return
		}
		held <- resp.StatusCode
	}()
	<-entered // the one slot is taken

	// answered while the slot is still held: it did not wait for it
	resp, err := a.Test(httptest.NewRequest("POST", "/fast", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	var body httpx.ErrorBody
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != fiber.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || body.OK || body.Error == "" || body.Hint == "" {
		t.Fatalf("a write past the bound: %d, Retry-After %q, body %+v; want 503, 1 and the error body", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if resp, err := a.Test(httptest.NewRequest("GET", "/read", nil), -1); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a read while writes are full: %v %v", resp, err)
	}

	close(release)
	if st := <-held; st != fiber.StatusCreated {
		t.Fatalf("the admitted write answered %d", st)
	}
	if resp, err := a.Test(httptest.NewRequest("POST", "/fast", nil), -1); err != nil || resp.StatusCode != fiber.StatusCreated {
		t.Fatalf("a write after the slot came free: %v %v", resp, err)
	}
}
