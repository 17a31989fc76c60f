package httpx_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
)

// The full server's Date is the second the answer was written in, at any
// point of the second (fasthttp's own refresh, once a second from an
// arbitrary moment, left it a second or two behind). Each answer's Date
// must fall between the second the request left and the moment the answer
// came back. fasthttp starts its refresh with the process's first answer:
// the first answer here comes late in a second, the others earlier in the
// seconds after, where the old refresh still held the second before.
func TestFullServerDateIsCurrent(t *testing.T) {
	a := httpx.NewApp(httpx.Options{Service: "datetest", NoFrontDoor: true})
	a.Get("/ok", func(c *fiber.Ctx) error { return httpx.OK(c, 200, nil) })
	url := "http://" + serve(t, a) + "/ok"
	for _, into := range []time.Duration{950, 100, 300, 500, 700, 850} {
		now := time.Now()
		next := now.Truncate(time.Second).Add(time.Second)
		time.Sleep(next.Add(into * time.Millisecond).Sub(now)) // to that point of the next second
		sent := time.Now()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		back := time.Now()
		date, err := http.ParseTime(resp.Header.Get("Date"))
		if err != nil {
			t.Fatalf("Date %q: %v", resp.Header.Get("Date"), err)
		}
		if date.Before(sent.Truncate(time.Second)) || date.After(back) {
			t.Fatalf("%v into a second: Date %s for a request sent at %s and answered at %s",
				into*time.Millisecond, date.Format(time.TimeOnly), sent.Format("15:04:05.000"), back.Format("15:04:05.000"))
		}
	}
}
