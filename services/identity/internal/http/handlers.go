// Package http is identity's Fiber adapter: decode, call the app, encode.
package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/admit"
	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/services/identity/internal/app"
	"sharedworld.dev/services/identity/internal/domain"
)

// Handlers serves identity's routes.
type Handlers struct {
	App             *app.App
	Auth            *auth.Middleware
	AmbassadorToken string
	// Citizens is the app's lookup in the shape other services read; it
	// admits citizens to their routes and answers the internal lookup.
	Citizens citizens.Source
	// Limits holds registration's budgets (per provider identity and per
	// source address).
	Limits *admit.Limits
}

// Routes registers the public routes.
func (h *Handlers) Routes(r fiber.Router) {
	citizen := admit.Living(h.Citizens)
	r.Post("/api/world/register", h.Limits.PerSource(ratelimit.RegisterSource), h.Auth.Required(),
		h.Limits.PerAgent(ratelimit.RegisterAgent), h.register)
	r.Get("/api/world/citizens/:agent_id", h.citizen)
	r.Get("/api/world/whoami", h.Auth.Required(), h.whoami)
	r.Get("/api/world/profile", h.Auth.Required(), citizen, h.profile)
	r.Put("/api/world/profile", h.Auth.Required(), citizen, h.updateProfile)
	r.Get("/api/world/directory", h.directory)
	r.Post("/api/admin/citizens/:agent_id/tombstone", auth.Ambassador(h.AmbassadorToken), h.tombstone)
}

// InternalRoutes registers the cluster-internal routes other services call.
func (h *Handlers) InternalRoutes(r fiber.Router) {
	r.Get("/internal/citizens/:agent_id", h.internalCitizen)
	r.Post("/internal/presence", h.internalPresence)
}

type citizenJSON struct {
	AgentID       string  `json:"agent_id"`
	Name          *string `json:"name"`
	CitizenNumber int64   `json:"citizen_number"`
	RegisteredAt  string  `json:"registered_at"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toCitizenJSON(c domain.Citizen) citizenJSON {
	return citizenJSON{AgentID: c.AgentID, Name: nullable(c.Name), CitizenNumber: c.Number, RegisteredAt: clock.Timestamp(c.RegisteredAt)}
}

type profileFields struct {
	Name             *string   `json:"name"`
	Bio              *string   `json:"bio"`
	Interests        *[]string `json:"interests"`
	DirectoryVisible *bool     `json:"directory_visible"`
	DirectoryBio     *string   `json:"directory_bio"`
}

func (f profileFields) change() domain.ProfileChange {
	return domain.ProfileChange{Name: f.Name, Bio: f.Bio, Interests: f.Interests, DirectoryVisible: f.DirectoryVisible, DirectoryBio: f.DirectoryBio}
}

// merge fills absent top-level fields from a nested object.
func (f profileFields) merge(nested *profileFields) profileFields {
	if nested == nil {
		return f
	}
	if f.Name == nil {
		f.Name = nested.Name
	}
	if f.Bio == nil {
		f.Bio = nested.Bio
	}
	if f.Interests == nil {
		f.Interests = nested.Interests
	}
	if f.DirectoryVisible == nil {
		f.DirectoryVisible = nested.DirectoryVisible
	}
	if f.DirectoryBio == nil {
		f.DirectoryBio = nested.DirectoryBio
	}
	return f
}

type registerRequest struct {
	profileFields
	Data *profileFields `json:"data"`
}

func (h *Handlers) register(c *fiber.Ctx) error {
	var req registerRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	p, _ := auth.PrincipalOf(c)
	fields := req.profileFields.merge(req.Data)
	fields.Bio = nil // registration takes name, directory fields and interests (CONTRACT §3)
	cit, err := h.App.Register(c.UserContext(), p.AgentID, fields.change())
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"citizen": toCitizenJSON(cit)})
}

func (h *Handlers) citizen(c *fiber.Ctx) error {
	cit, err := h.App.Citizen(c.UserContext(), c.Params("agent_id"))
	if err != nil {
		return err
	}
	j := toCitizenJSON(cit)
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"agent_id": j.AgentID, "registered_at": j.RegisteredAt, "name": j.Name, "citizen_number": j.CitizenNumber})
}

func (h *Handlers) whoami(c *fiber.Ctx) error {
	p, _ := auth.PrincipalOf(c)
	cit, found, err := h.App.Find(c.UserContext(), p.AgentID)
	if err != nil {
		return err
	}
	if found && cit.Status == domain.StatusTombstoned {
		return problem.Permission("This citizen has been tombstoned and cannot act.", "Contact the ambassador.")
	}
	body := fiber.Map{"agent_id": p.AgentID, "registered": found && cit.Status == domain.StatusLiving, "online": p.Signed}
	if found && cit.Status == domain.StatusLiving {
		body["citizen"] = toCitizenJSON(cit)
		body["online"] = p.Signed || h.App.Online(cit)
	}
	return httpx.OK(c, fiber.StatusOK, body)
}

type profileJSON struct {
	AgentID          string   `json:"agent_id"`
	Name             *string  `json:"name"`
	Bio              string   `json:"bio"`
	Interests        []string `json:"interests"`
	DirectoryVisible bool     `json:"directory_visible"`
	DirectoryBio     string   `json:"directory_bio"`
	CitizenNumber    int64    `json:"citizen_number"`
	RegisteredAt     string   `json:"registered_at"`
	LastSeenAt       *string  `json:"last_seen_at"`
	Online           bool     `json:"online"`
}

func (h *Handlers) toProfileJSON(cit domain.Citizen) profileJSON {
	interests := cit.Interests
	if interests == nil {
		interests = []string{}
	}
	pj := profileJSON{AgentID: cit.AgentID, Name: nullable(cit.Name), Bio: cit.Bio, Interests: interests, DirectoryVisible: cit.DirectoryVisible,
		DirectoryBio: cit.DirectoryBio, CitizenNumber: cit.Number, RegisteredAt: clock.Timestamp(cit.RegisteredAt), Online: h.App.Online(cit)}
	if seen := h.App.LastSeen(cit); !seen.IsZero() {
		s := clock.Timestamp(seen)
		pj.LastSeenAt = &s
	}
	return pj
}

func (h *Handlers) profile(c *fiber.Ctx) error {
	cit, err := h.App.Citizen(c.UserContext(), admit.CitizenOf(c).AgentID)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"profile": h.toProfileJSON(cit)})
}

type profileRequest struct {
	profileFields
	Profile *profileFields `json:"profile"`
}

func (h *Handlers) updateProfile(c *fiber.Ctx) error {
	var req profileRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	cit, err := h.App.UpdateProfile(c.UserContext(), admit.CitizenOf(c).AgentID, req.profileFields.merge(req.Profile).change())
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"profile": h.toProfileJSON(cit)})
}

type directoryEntry struct {
	AgentID      string   `json:"agent_id"`
	Name         string   `json:"name"`
	DirectoryBio string   `json:"directory_bio"`
	Interests    []string `json:"interests"`
	RegisteredAt string   `json:"registered_at"`
}

// directoryPage is the directory's answer, typed rather than a map: the
// encoder walks a struct it has cached, without sorting keys or boxing.
type directoryPage struct {
	OK       bool             `json:"ok"`
	Citizens []directoryEntry `json:"citizens"`
	Total    int64            `json:"total"`
	HasMore  bool             `json:"has_more"`
}

func (h *Handlers) directory(c *fiber.Ctx) error {
	limit, err := httpx.Limit(c)
	if err != nil {
		return err
	}
	offset, err := httpx.ParseOffset(c.Query("offset"))
	if err != nil {
		return err
	}
	list, total, err := h.App.Directory(c.UserContext(), domain.DirectoryQuery{Search: c.Query("search"), Interest: c.Query("interest"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	out := make([]directoryEntry, len(list))
	for i, cit := range list {
		interests := cit.Interests
		if interests == nil {
			interests = []string{}
		}
		out[i] = directoryEntry{AgentID: cit.AgentID, Name: cit.Name, DirectoryBio: cit.DirectoryBio, Interests: interests, RegisteredAt: clock.Timestamp(cit.RegisteredAt)}
	}
	return httpx.JSON(c, fiber.StatusOK, directoryPage{OK: true, Citizens: out, Total: total, HasMore: int64(offset+len(out)) < total})
}

func (h *Handlers) tombstone(c *fiber.Ctx) error {
	cit, err := h.App.Tombstone(c.UserContext(), c.Params("agent_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"agent_id": cit.AgentID, "tombstoned_at": clock.Timestamp(cit.TombstonedAt)})
}

func (h *Handlers) internalCitizen(c *fiber.Ctx) error {
	cit, found, err := h.Citizens.Lookup(c.UserContext(), c.Params("agent_id"))
	if err != nil {
		return err
	}
	if !found {
		return domain.ErrNoCitizen
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"citizen": cit})
}

type presenceRequest struct {
	Sightings []struct {
		AgentID string    `json:"agent_id"`
		Signed  bool      `json:"signed"`
		At      time.Time `json:"at"`
	} `json:"sightings"`
}

func (h *Handlers) internalPresence(c *fiber.Ctx) error {
	var req presenceRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	now := h.App.Now().UTC()
	for _, s := range req.Sightings {
		at := s.At
		if at.IsZero() || at.After(now.Add(time.Minute)) {
			at = now
		}
		h.App.Presence.Record(s.AgentID, at, s.Signed)
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"recorded": len(req.Sightings)})
}
