package httpx

import (
	"net"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// The front door reads connections only where it has something to answer:
// an app with document routes. Every other app (a service without one, an
// admin port) and an app whose options turned it off accept straight from
// the linger listener, so their connections are read once, by fasthttp.
func TestFrontDoorOnlyBeforeDocumentRoutes(t *testing.T) {
	doc := func() *Document { return nil }
	cases := []struct {
		name      string
		opts      Options
		documents bool
		wantDoor  bool
	}{
		{"an app with a document route", Options{Service: "bulletin"}, true, true},
		{"an app without document routes", Options{Service: "tickets"}, false, false},
		{"an admin port", Options{Service: "bulletin-admin", Unmetered: true}, false, false},
		{"WORLD_FRONT_DOOR=off", Options{Service: "bulletin", NoFrontDoor: true}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app := NewApp(tc.opts)
			app.Get("/doc", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusServiceUnavailable) })
			if tc.documents {
				DocumentGET(app, "/doc", doc)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			served := listenerFor(app, ln)
			defer served.Close()
			_, isDoor := served.(*frontDoor)
			if isDoor != tc.wantDoor {
				t.Fatalf("front door installed = %v, want %v (listener %T)", isDoor, tc.wantDoor, served)
			}
			if _, ok := fastApps.Load(app); !ok {
				t.Fatal("the app lost its fast routes")
			}
		})
	}
}
