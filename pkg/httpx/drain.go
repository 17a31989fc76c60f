package httpx

import "github.com/gofiber/fiber/v2"

// Drain starts the drain of app, served by Serve: from now on every answer,
// of the full server and of the front door, carries Connection: close and
// its connection ends once it is written, so a client (or a proxy's pool)
// opens its next connection to another replica instead of reusing one
// this replica is about to close under it. Connections that stay idle are
// closed by Shutdown. Draining does not stop the app from accepting: a
// replica keeps answering while the endpoints that route to it are updated.
func Drain(app *fiber.App) {
	if v, ok := fastApps.Load(app); ok {
		v.(*fastRoutes).draining.Store(true)
	}
}

// Draining reports whether Drain was called on app.
func Draining(app *fiber.App) bool {
	v, ok := fastApps.Load(app)
	return ok && v.(*fastRoutes).draining.Load()
}
