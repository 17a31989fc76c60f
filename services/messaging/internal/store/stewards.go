package store

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/clock"
)

// StewardRepo is the projection of governance's steward events: one
// document per office (_id the role) naming its current steward. Until
// governance publishes a steward.elected, nobody is a steward.
type StewardRepo struct{ s *Store }

type stewardDoc struct {
	Role     string    `bson:"_id"`
	AgentID  string    `bson:"agent_id"`
	TermEnd  time.Time `bson:"term_end"`
	Ended    bool      `bson:"ended"`
	Election string    `bson:"election_id"`
}

// Elected makes agentID the steward of role until termEnd. A redelivered
// event writes the same values again.
func (r *StewardRepo) Elected(ctx context.Context, role, agentID, electionID string, termEnd time.Time) error {
	coll := r.s.stewards
	defer r.s.db.Lock(coll, role)()
	_, err := coll.UpdateOne(ctx, bson.M{"_id": role}, bson.M{"$set": bson.M{
		"agent_id": agentID, "term_end": termEnd, "ended": false, "election_id": electionID,
	}}, options.Update().SetUpsert(true))
	if m := r.s.mirror; m != nil && err == nil {
		m.stewards.Put(stewardDoc{Role: role, AgentID: agentID, TermEnd: clock.Stored(termEnd), Election: electionID})
	}
	return err
}

// TermEnded ends agentID's term in role, if it still holds it (a later
// election may already have named someone else).
func (r *StewardRepo) TermEnded(ctx context.Context, role, agentID string) error {
	coll := r.s.stewards
	defer r.s.db.Lock(coll, role)()
	var d stewardDoc
	err := coll.FindOne(ctx, bson.M{"_id": role}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && d.AgentID != agentID) {
		return nil
	}
	if err != nil {
		return err
	}
	res, err := coll.UpdateOne(ctx, r.s.db.Guarded(role, bson.M{"agent_id": agentID}), bson.M{"$set": bson.M{"ended": true}})
	if m := r.s.mirror; m != nil && err == nil && res.MatchedCount == 1 {
		m.stewards.Change(role, func(d *stewardDoc) bool {
			d.Ended = true
			return true
		})
	}
	return err
}

// IsSteward reports whether agentID holds an office whose term runs at now.
// On an exclusive database the offices are in memory: a handful of rows.
func (r *StewardRepo) IsSteward(ctx context.Context, agentID string, now time.Time) (bool, error) {
	if m := r.s.mirror; m != nil {
		now = clock.Stored(now)
		found := false
		m.stewards.Scan(func(d *stewardDoc) bool {
			found = d.AgentID == agentID && !d.Ended && d.TermEnd.After(now)
			return !found
		})
		return found, nil
	}
	err := r.s.stewards.FindOne(ctx, bson.M{"agent_id": agentID, "ended": false, "term_end": bson.M{"$gt": now}}).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}
