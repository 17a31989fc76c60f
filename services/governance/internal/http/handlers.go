// Package http is the governance service's Fiber adapter: decode, call
// the app, encode. No rule lives here.
package http

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/admit"
	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/governance/internal/app"
	"sharedworld.dev/services/governance/internal/domain"
)

// Handlers serves the governance routes.
type Handlers struct {
	App             *app.App
	Auth            *auth.Middleware
	Citizens        citizens.Source
	AmbassadorToken string
}

// Routes registers the public and ambassador routes (CONTRACT §7).
func (h *Handlers) Routes(r fiber.Router) {
	citizen := admit.Living(h.Citizens)
	r.Post("/api/world/governance/propose", h.Auth.Required(), citizen, h.propose)
	r.Post("/api/world/governance/recall", h.Auth.Required(), citizen, h.recall)
	r.Post("/api/world/governance/vote", h.Auth.Required(), citizen, h.vote)
	r.Get("/api/world/governance/proposals", h.list)
	r.Get("/api/world/governance/results", h.results)
	r.Get("/api/world/governance/results/:proposal_id", h.result)
	r.Post("/api/world/governance/elect", h.Auth.Required(), citizen, h.elect)
	r.Get("/api/world/elections", h.elections)
	r.Get("/api/world/elections/:election_id", h.election)
	r.Get("/api/world/governance/stewards", h.stewards)
	r.Post("/api/admin/governance/check", auth.Ambassador(h.AmbassadorToken), h.check)
}

func (h *Handlers) propose(c *fiber.Ctx) error {
	var req proposeRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	p, err := h.App.Propose(c.UserContext(), admit.CitizenOf(c).AgentID, domain.ProposeRequest{Title: req.Title, Body: req.Body, Type: req.Type, Tier: req.Tier})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"proposal": toProposalJSON(p)})
}

func (h *Handlers) recall(c *fiber.Ctx) error {
	var req recallRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	p, err := h.App.Recall(c.UserContext(), admit.CitizenOf(c).AgentID, app.RecallRequest{Role: req.Role, StewardAgentID: req.StewardAgentID, Reason: req.Reason})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"proposal": toProposalJSON(p)})
}

func (h *Handlers) vote(c *fiber.Ctx) error {
	var req voteRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	if req.ProposalID == "" {
		return problem.Invalid(`Field "proposal_id" is missing or empty.`, "Send the proposal_id of a proposal in voting; list them with GET /api/world/governance/proposals?status=voting.")
	}
	v, err := h.App.Vote(c.UserContext(), admit.CitizenOf(c), req.ProposalID, req.Vote)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"vote_id": v.VoteID, "proposal_id": v.ProposalID, "cast_at": clock.Timestamp(v.CastAt)})
}

func (h *Handlers) list(c *fiber.Ctx) error {
	var q domain.ProposalQuery
	if s := c.Query("status"); s != "" {
		st, err := parse("status", s, domain.ProposalStatuses)
		if err != nil {
			return err
		}
		q.Status = &st
	}
	if t := c.Query("type"); t != "" {
		ty, err := parse("type", t, domain.ProposalTypes)
		if err != nil {
			return err
		}
		q.Type = &ty
	}
	limit, err := httpx.Limit(c)
	if err != nil {
		return err
	}
	if q.After, err = decodeCursor(c.Query("cursor")); err != nil {
		return err
	}
	q.Limit = limit
	ps, next, err := h.App.List(c.UserContext(), q)
	if err != nil {
		return err
	}
	var cursor *string
	if next != nil {
		s := encodeCursor(*next)
		cursor = &s
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"proposals": proposalsJSON(ps), "pagination": httpx.Pagination{Limit: limit, Count: len(ps), Next: cursor}})
}

func proposalsJSON(ps []domain.Proposal) []proposalJSON {
	out := make([]proposalJSON, len(ps))
	for i, p := range ps {
		out[i] = toProposalJSON(p)
	}
	return out
}

func (h *Handlers) results(c *fiber.Ctx) error {
	ps, _, err := h.App.List(c.UserContext(), domain.ProposalQuery{})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"proposals": proposalsJSON(ps)})
}

func (h *Handlers) result(c *fiber.Ctx) error {
	p, err := h.App.Get(c.UserContext(), c.Params("proposal_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"proposal": toProposalJSON(p)})
}

func (h *Handlers) elect(c *fiber.Ctx) error {
	var req electRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	res, err := h.App.Elect(c.UserContext(), admit.CitizenOf(c).AgentID, app.ElectRequest{ElectionID: req.ElectionID, Role: req.Role, Action: req.Action, Candidate: req.Candidate})
	if err != nil {
		return err
	}
	out := fiber.Map{"election_id": res.Election.ID, "action": res.Action, "candidate_agent_id": res.Candidate,
		"election": toElectionJSON(res.Election, turnoutOf(res.Election))}
	if res.VoteID != "" {
		out["vote_id"] = res.VoteID
	}
	return httpx.OK(c, fiber.StatusOK, out)
}

func (h *Handlers) elections(c *fiber.Ctx) error {
	var q domain.ElectionQuery
	if s := c.Query("status"); s != "" {
		st, err := parse("status", s, domain.ElectionStatuses)
		if err != nil {
			return err
		}
		q.Status = &st
	}
	if r := c.Query("role"); r != "" {
		role, err := parse("role", r, domain.Offices)
		if err != nil {
			return err
		}
		q.Role = &role
	}
	es, err := h.App.Elections(c.UserContext(), q)
	if err != nil {
		return err
	}
	out := make([]electionJSON, len(es))
	for i, e := range es {
		out[i] = toElectionJSON(e, turnoutOf(e))
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"elections": out})
}

func (h *Handlers) election(c *fiber.Ctx) error {
	e, err := h.App.Election(c.UserContext(), c.Params("election_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"election": toElectionJSON(e, turnoutOf(e))})
}

func (h *Handlers) stewards(c *fiber.Ctx) error {
	held, vacant, err := h.App.Stewards(c.UserContext())
	if err != nil {
		return err
	}
	stewards := make([]stewardJSON, len(held))
	for i, o := range held {
		t := o.Current
		stewards[i] = stewardJSON{AgentID: t.AgentID, Role: string(o.Role), TermStart: clock.Timestamp(t.Start), TermEnd: clock.Timestamp(t.End), TermNumber: t.Number}
	}
	roles := make([]string, len(vacant))
	for i, r := range vacant {
		roles[i] = string(r)
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"stewards": stewards, "vacant": roles})
}

func (h *Handlers) check(c *fiber.Ctx) error {
	ts, err := h.App.Check(c.UserContext())
	if errors.Is(err, domain.ErrLeaseHeld) {
		return problem.Conflict("Another governance check is running; this one did nothing.",
			"Retry in a minute: the running check applies every transition that is due.")
	}
	if err != nil {
		return err
	}
	out := make([]transitionJSON, len(ts))
	for i, t := range ts {
		out[i] = transitionJSON{Kind: t.Kind, ID: t.ID, From: t.From, To: t.To, At: clock.Timestamp(t.At)}
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"transitions": out})
}
