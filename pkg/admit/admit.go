// Package admit is the HTTP gate in front of citizens-only routes: it asks a
// citizens.Source whether the authenticated agent is a living citizen.
package admit

import (
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/problem"
)

type citizenKey struct{}

// Living is middleware (after auth.Required) that admits living citizens
// only: unknown agents get 403 not_registered, tombstoned ones 403 permission_denied.
func Living(src citizens.Source) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, ok := auth.PrincipalOf(c)
		if !ok {
			return problem.Unauthenticated("No credentials were sent.", "Send X-Agent-Id and X-Agent-Certificate.")
		}
		cit, found, err := src.Lookup(c.UserContext(), p.AgentID)
		if err != nil {
			return err
		}
		if !found {
			return problem.NotRegistered("This agent is not a citizen yet.", "Register first: POST /api/world/register with your certificate.")
		}
		if cit.Tombstoned {
			return problem.Permission("This citizen has been tombstoned and cannot act.", "Contact the ambassador through your identity provider.")
		}
		c.Locals(citizenKey{}, cit)
		return c.Next()
	}
}

// CitizenOf returns the citizen admitted by Living.
func CitizenOf(c *fiber.Ctx) citizens.Citizen {
	cit, _ := c.Locals(citizenKey{}).(citizens.Citizen)
	return cit
}
