package store

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/messaging/internal/domain"
)

// Stewards is the projection of governance's steward events: one document
// per office (_id the role) naming its current steward. Until governance
// publishes a steward.elected, nobody is a steward.
type Stewards interface {
	domain.Stewards
	// Elected makes agentID the steward of role until termEnd. A
	// redelivered event writes the same values again.
	Elected(ctx context.Context, role, agentID, electionID string, termEnd time.Time) error
	// TermEnded ends agentID's term in role, if it still holds it (a later
	// election may already have named someone else).
	TermEnded(ctx context.Context, role, agentID string) error
}

type stewardDoc struct {
	Role     string    `bson:"_id"`
	AgentID  string    `bson:"agent_id"`
	TermEnd  time.Time `bson:"term_end"`
	Ended    bool      `bson:"ended"`
	Election string    `bson:"election_id"`
}

// stewardRepo is the MongoDB adapter of Stewards.
type stewardRepo struct{ s *Store }

func (r stewardRepo) Elected(ctx context.Context, role, agentID, electionID string, termEnd time.Time) error {
	coll := r.s.stewards
	defer r.s.db.Lock(coll, role)()
	_, err := coll.UpdateOne(ctx, bson.M{"_id": role}, bson.M{"$set": bson.M{
		"agent_id": agentID, "term_end": termEnd, "ended": false, "election_id": electionID,
	}}, options.Update().SetUpsert(true))
	if written := r.s.stewardWritten; written != nil && err == nil {
		written(stewardDoc{Role: role, AgentID: agentID, TermEnd: clock.Stored(termEnd), Election: electionID})
	}
	return err
}

func (r stewardRepo) TermEnded(ctx context.Context, role, agentID string) error {
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
	if written := r.s.stewardWritten; written != nil && err == nil && res.MatchedCount == 1 {
		d.Ended = true
		written(d)
	}
	return err
}

// IsSteward reports whether agentID holds an office whose term runs at now.
func (r stewardRepo) IsSteward(ctx context.Context, agentID string, now time.Time) (bool, error) {
	err := r.s.stewards.FindOne(ctx, bson.M{"agent_id": agentID, "ended": false, "term_end": bson.M{"$gt": now}}).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}
