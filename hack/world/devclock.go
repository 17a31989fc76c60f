package world

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/problem"
)

// devClockUnit is the runner's development clock as a service of its own:
// POST /api/admin/clock {"advance": "<Go duration>"} moves every service's
// time. Only the runner hosts it, and only when WORLD_DEV_CLOCK is on. The
// offset is kept in its database, so a restart keeps the world's time.
var devClockUnit = platform.Unit{
	Name: "devclock",
	Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
		dc, _ := env.Deps.Clock.(*clock.Dev)
		kept := env.Deps.DB.Collection(offsetColl)
		return devClock{clock: dc, token: env.Deps.AmbassadorToken, keep: func(ctx context.Context, offset time.Duration) error {
			_, err := kept.UpdateOne(ctx, bson.M{"_id": offsetID},
				bson.M{"$set": bson.M{"offset_ns": int64(offset)}}, options.Update().SetUpsert(true))
			return err
		}}, nil
	},
}

// The offset's one document: {_id: "offset", offset_ns: <int64>}.
const (
	offsetColl = "clock"
	offsetID   = "offset"
)

// keptOffset reads the offset a previous run kept (0 when none).
func keptOffset(ctx context.Context, db *mongo.Database) (time.Duration, error) {
	var doc struct {
		OffsetNS int64 `bson:"offset_ns"`
	}
	err := db.Collection(offsetColl).FindOne(ctx, bson.M{"_id": offsetID}).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the development clock's offset: %w", err)
	}
	return time.Duration(doc.OffsetNS), nil
}

type devClock struct {
	clock *clock.Dev
	token string
	keep  func(ctx context.Context, offset time.Duration) error
}

// advanceRequest is the body of POST /api/admin/clock.
type advanceRequest struct {
	Advance *string `json:"advance"`
}

func (devClock) Name() string                  { return "devclock" }
func (devClock) BodyLimits() map[string]int    { return nil }
func (devClock) Run(ctx context.Context) error { <-ctx.Done(); return nil }

func (d devClock) Routes(r fiber.Router) { DevClockRoutes(r, d.clock, d.token, d.keep) }

// DevClockRoutes serves POST /api/admin/clock {"advance": "<Go duration>"}
// on r: the ambassador moves the development clock d forward; keep stores
// (and, in a cluster, spreads) the new offset before the clock moves, and
// the clock stays where it was when keep fails.
func DevClockRoutes(r fiber.Router, d *clock.Dev, token string, keep func(ctx context.Context, offset time.Duration) error) {
	r.Post("/api/admin/clock", auth.Ambassador(token), func(c *fiber.Ctx) error {
		var req advanceRequest
		if err := httpx.Decode(c, &req); err != nil {
			return err
		}
		// A body without advance is a mistake (a misspelt field, a number
		// sent as a string's neighbour), not a question: it would move
		// nothing and look like success. "0s" reads the clock.
		if req.Advance == nil {
			return problem.Invalid("advance is required.", `Send {"advance": "72h"} to move the clock, {"advance": "0s"} to read it.`)
		}
		dur, err := time.ParseDuration(*req.Advance)
		if err != nil || dur < 0 {
			return problem.Invalid("advance is not a non-negative Go duration.", `Send {"advance": "72h"} (units h, m, s).`)
		}
		now, err := d.Advance(dur, func(offset time.Duration) error { return keep(c.UserContext(), offset) })
		if errors.Is(err, clock.ErrTooFar) {
			left := clock.MaxDevOffset - d.Offset()
			return problem.Invalidf(fmt.Sprintf("The clock may run at most 10 years (%s) ahead in all; it is %s ahead, so advance by at most %s.",
				clock.MaxDevOffset, d.Offset().Round(time.Second), left.Truncate(time.Second)),
				"advance %q would take the world more than 10 years ahead of the wall clock.", *req.Advance)
		}
		if err != nil {
			return err
		}
		return httpx.OK(c, fiber.StatusOK, fiber.Map{"now": clock.Timestamp(now)})
	})
}
