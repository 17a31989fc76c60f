package admit

import (
	"net"
	"strings"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/ratelimit"
)

// Limits puts the kit's rate limiter in front of routes. A nil *Limits
// limits nothing.
type Limits struct {
	Limiter *ratelimit.Limiter
	// SourceHeader, when set, names the header a trusted proxy puts the
	// client address in (its first entry is the source); otherwise the
	// source is the connection's address.
	SourceHeader string
	// LoopbackUnlimited exempts loopback clients from per-source rules (the
	// local runner: config.Common.LoopbackSourcesUnlimited).
	LoopbackUnlimited bool
}

// PerAgent counts a request against rule for the authenticated agent (after
// auth.Required; an anonymous request passes).
func (l *Limits) PerAgent(rule string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, ok := auth.PrincipalOf(c)
		if !ok {
			return c.Next()
		}
		return l.around(c, rule, p.AgentID)
	}
}

// PerSource counts a request against rule for its source address.
func (l *Limits) PerSource(rule string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		src := l.Source(c)
		if l != nil && l.LoopbackUnlimited && src == c.IP() && isLoopback(src) {
			return c.Next()
		}
		return l.around(c, rule, src)
	}
}

func isLoopback(addr string) bool {
	ip := net.ParseIP(addr)
	return ip != nil && ip.IsLoopback()
}

// around counts the request, runs the rest of the chain, and gives the
// count back when the request was refused there.
func (l *Limits) around(c *fiber.Ctx, rule, key string) error {
	taken, err := l.Take(c, rule, key)
	if err != nil {
		return err
	}
	err = c.Next()
	if auth.Refused(c, err) {
		taken.Give(c.UserContext())
	}
	return err
}

// Take counts one request of key under rule, or returns the 429. A handler
// that takes mid-way gives the count back (Taken.Give) when it refuses the
// request after all.
func (l *Limits) Take(c *fiber.Ctx, rule, key string) (ratelimit.Taken, error) {
	if l == nil {
		return ratelimit.Taken{}, nil
	}
	return l.Limiter.Allow(c.UserContext(), rule, key)
}

// Source is the request's client address.
func (l *Limits) Source(c *fiber.Ctx) string {
	if l != nil && l.SourceHeader != "" {
		if v := c.Get(l.SourceHeader); v != "" {
			first, _, _ := strings.Cut(v, ",")
			if s := strings.TrimSpace(first); s != "" {
				return s
			}
		}
	}
	return c.IP()
}
