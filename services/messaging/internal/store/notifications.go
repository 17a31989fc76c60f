package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/messaging/internal/domain"
)

type broadcastDoc struct {
	ID        string    `bson:"_id"`
	Key       string    `bson:"key"`
	Kind      string    `bson:"kind"`
	Title     string    `bson:"title"`
	PostID    string    `bson:"post_id"`
	RefID     string    `bson:"ref_id"`
	CreatedAt time.Time `bson:"created_at"`
	Seq       int64     `bson:"seq"`
}

func (d broadcastDoc) domain() domain.Broadcast {
	return domain.Broadcast{ID: d.ID, Key: d.Key, Kind: domain.Kind(d.Kind), Title: d.Title, PostID: d.PostID,
		RefID: d.RefID, CreatedAt: utc(d.CreatedAt), Seq: d.Seq}
}

type personalDoc struct {
	ID        string     `bson:"_id"`
	AgentID   string     `bson:"agent_id"`
	Key       string     `bson:"key"`
	Kind      string     `bson:"kind"`
	Title     string     `bson:"title"`
	RefID     string     `bson:"ref_id"`
	CreatedAt time.Time  `bson:"created_at"`
	ReadAt    *time.Time `bson:"read_at"`
}

func (d personalDoc) domain() domain.Personal {
	return domain.Personal{ID: d.ID, AgentID: d.AgentID, Key: d.Key, Kind: domain.Kind(d.Kind), Title: d.Title,
		RefID: d.RefID, CreatedAt: utc(d.CreatedAt), ReadAt: utcPtr(d.ReadAt)}
}

type markDoc struct {
	Seq int64     `bson:"seq"`
	At  time.Time `bson:"at"`
}

// readStateDoc is one citizen's reading of the notifications (_id the agent id).
type readStateDoc struct {
	ID             string    `bson:"_id"`
	Cursor         int64     `bson:"cursor"`
	CursorAt       time.Time `bson:"cursor_at"`
	Marks          []markDoc `bson:"marks"`
	PersonalBefore time.Time `bson:"personal_before"`
}

func (d readStateDoc) domain() domain.ReadState {
	st := domain.ReadState{AgentID: d.ID, Cursor: d.Cursor, CursorAt: utc(d.CursorAt), PersonalBefore: utc(d.PersonalBefore)}
	if d.PersonalBefore.IsZero() {
		st.PersonalBefore = time.Time{}
	}
	for _, m := range d.Marks {
		st.Marks = append(st.Marks, domain.Mark{Seq: m.Seq, At: utc(m.At)})
	}
	return st
}

func (d *readStateDoc) apply(st domain.ReadState) {
	d.Cursor, d.CursorAt, d.PersonalBefore = st.Cursor, st.CursorAt, st.PersonalBefore
	d.Marks = make([]markDoc, 0, len(st.Marks))
	for _, m := range st.Marks {
		d.Marks = append(d.Marks, markDoc{Seq: m.Seq, At: m.At})
	}
}

type notificationRepo struct{ s *Store }

// seqAttempts bounds how often a broadcast takes the next Seq again after
// another replica took it first.
const seqAttempts = 8

// seqReader answers the reads a broadcast's Seq is decided by (the MongoDB
// adapter queries; the mirrored one reads its copy).
type seqReader interface {
	keyExists(ctx context.Context, key string) (bool, error)
	LatestSeq(ctx context.Context) (int64, error)
}

// AddBroadcast is the whole fan-out: one insert. Within this process the
// sequence lock makes Seqs dense; between replicas the unique seq index
// decides and the loser takes the next one.
func (r notificationRepo) AddBroadcast(ctx context.Context, b domain.Broadcast) (bool, error) {
	return r.addBroadcast(ctx, b, r)
}

// addBroadcast is AddBroadcast deciding the Seq by seqs' reads.
func (r notificationRepo) addBroadcast(ctx context.Context, b domain.Broadcast, seqs seqReader) (bool, error) {
	defer r.s.db.LockKey("broadcast_seq")()
	for attempt := 0; attempt < seqAttempts; attempt++ {
		if exists, err := seqs.keyExists(ctx, b.Key); err != nil || exists {
			return false, err
		}
		latest, err := seqs.LatestSeq(ctx)
		if err != nil {
			return false, err
		}
		_, err = r.s.broadcasts.Create(ctx, domain.NotificationPrefix, func(id string) (broadcastDoc, []events.Event, error) {
			return broadcastDoc{ID: id, Key: b.Key, Kind: string(b.Kind), Title: b.Title, PostID: b.PostID, RefID: b.RefID,
				CreatedAt: b.CreatedAt, Seq: latest + 1}, nil, nil
		})
		if errors.Is(err, mongox.ErrDuplicate) {
			continue // the key (a redelivery) or the seq (another replica): decide again
		}
		if err != nil {
			return false, fmt.Errorf("store broadcast: %w", err)
		}
		return true, nil
	}
	return false, domain.ErrBusy
}

func (r notificationRepo) keyExists(ctx context.Context, key string) (bool, error) {
	err := r.s.broadcasts.Collection().FindOne(ctx, bson.M{"key": key}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}

func (r notificationRepo) seqOf(ctx context.Context, filter bson.M, sort bson.D) (int64, error) {
	var d struct {
		Seq int64 `bson:"seq"`
	}
	err := r.s.broadcasts.Collection().FindOne(ctx, filter, options.FindOne().SetSort(sort).SetProjection(bson.M{"seq": 1})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, nil
	}
	return d.Seq, err
}

func (r notificationRepo) LatestSeq(ctx context.Context) (int64, error) {
	return r.seqOf(ctx, bson.M{}, bson.D{{Key: "seq", Value: -1}})
}

func (r notificationRepo) JoinedSeq(ctx context.Context, t time.Time) (int64, error) {
	return r.seqOf(ctx, bson.M{"created_at": bson.M{"$lt": t}}, newestSort("created_at"))
}

func (r notificationRepo) Broadcast(ctx context.Context, id string) (domain.Broadcast, bool, error) {
	d, err := r.s.broadcasts.Get(ctx, id)
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Broadcast{}, false, nil
	}
	if err != nil {
		return domain.Broadcast{}, false, err
	}
	return d.domain(), true, nil
}

func (r notificationRepo) Broadcasts(ctx context.Context, from int64, skip []int64, after *domain.Position, limit int) ([]domain.Broadcast, error) {
	seq := bson.M{"$gt": from}
	if len(skip) > 0 {
		seq["$nin"] = skip
	}
	opts := options.Find().SetSort(newestSort("created_at")).SetLimit(int64(limit))
	docs, err := mongox.FindAll[broadcastDoc](ctx, r.s.broadcasts.Collection(), newestAfter(bson.M{"seq": seq}, "created_at", after), opts)
	if err != nil {
		return nil, fmt.Errorf("list broadcasts: %w", err)
	}
	out := make([]domain.Broadcast, len(docs))
	for i, d := range docs {
		out[i] = d.domain()
	}
	return out, nil
}

func (r notificationRepo) AddPersonal(ctx context.Context, build func(id string) domain.Personal) error {
	_, err := r.s.personals.Create(ctx, domain.NotificationPrefix, func(id string) (personalDoc, []events.Event, error) {
		p := build(id)
		return personalDoc{ID: id, AgentID: p.AgentID, Key: p.Key, Kind: string(p.Kind), Title: p.Title, RefID: p.RefID,
			CreatedAt: p.CreatedAt}, nil, nil
	})
	if errors.Is(err, mongox.ErrDuplicate) {
		return nil // this key was notified already (a redelivered event)
	}
	return err
}

func (r notificationRepo) Personal(ctx context.Context, id string) (domain.Personal, bool, error) {
	d, err := r.s.personals.Get(ctx, id)
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Personal{}, false, nil
	}
	if err != nil {
		return domain.Personal{}, false, err
	}
	return d.domain(), true, nil
}

func (r notificationRepo) MarkPersonal(ctx context.Context, id string, fn func(*domain.Personal) error) (domain.Personal, error) {
	d, err := r.s.personals.Update(ctx, id, func(d *personalDoc) ([]events.Event, error) {
		p := d.domain()
		if err := fn(&p); err != nil {
			if errors.Is(err, domain.ErrUnchanged) {
				return nil, mongox.ErrNoChange
			}
			return nil, err
		}
		d.ReadAt = p.ReadAt
		return nil, nil
	})
	switch {
	case errors.Is(err, mongox.ErrNotFound):
		return domain.Personal{}, domain.ErrNotificationNotFound(id)
	case errors.Is(err, mongox.ErrVersionClash):
		return domain.Personal{}, domain.ErrBusy
	case err != nil:
		return domain.Personal{}, err
	}
	return d.domain(), nil
}

func unreadFilter(agentID string, after time.Time) bson.M {
	f := bson.M{"agent_id": agentID, "read_at": nil}
	if !after.IsZero() {
		f["created_at"] = bson.M{"$gt": after}
	}
	return f
}

func (r notificationRepo) Personals(ctx context.Context, agentID string, unreadAfter *time.Time, after *domain.Position, limit int) ([]domain.Personal, error) {
	filter := bson.M{"agent_id": agentID}
	if unreadAfter != nil {
		filter = unreadFilter(agentID, *unreadAfter)
	}
	opts := options.Find().SetSort(newestSort("created_at")).SetLimit(int64(limit))
	docs, err := mongox.FindAll[personalDoc](ctx, r.s.personals.Collection(), newestAfter(filter, "created_at", after), opts)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	out := make([]domain.Personal, len(docs))
	for i, d := range docs {
		out[i] = d.domain()
	}
	return out, nil
}

func (r notificationRepo) UnreadPersonals(ctx context.Context, agentID string, after time.Time) (int64, error) {
	return r.s.personals.Collection().CountDocuments(ctx, unreadFilter(agentID, after))
}

func (r notificationRepo) ReadState(ctx context.Context, agentID string) (domain.ReadState, error) {
	d, err := r.s.reads.Get(ctx, agentID)
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.ReadState{AgentID: agentID}, nil
	}
	if err != nil {
		return domain.ReadState{}, err
	}
	return d.domain(), nil
}

// ChangeReadState creates the citizen's read state on its first mark (a
// racing creation is a duplicate, and both go on to the guarded update).
func (r notificationRepo) ChangeReadState(ctx context.Context, agentID string, fn func(*domain.ReadState) error) (domain.ReadState, error) {
	for attempt := 0; attempt < 2; attempt++ {
		d, err := r.s.reads.Update(ctx, agentID, func(d *readStateDoc) ([]events.Event, error) {
			st := d.domain()
			if err := fn(&st); err != nil {
				if errors.Is(err, domain.ErrUnchanged) {
					return nil, mongox.ErrNoChange
				}
				return nil, err
			}
			d.apply(st)
			return nil, nil
		})
		if errors.Is(err, mongox.ErrNotFound) {
			if _, err := r.s.reads.Insert(ctx, agentID, readStateDoc{ID: agentID, Marks: []markDoc{}}); err != nil && !errors.Is(err, mongox.ErrDuplicate) {
				return domain.ReadState{}, err
			}
			continue
		}
		if errors.Is(err, mongox.ErrVersionClash) {
			return domain.ReadState{}, domain.ErrBusy
		}
		if err != nil {
			return domain.ReadState{}, err
		}
		return d.domain(), nil
	}
	return domain.ReadState{}, domain.ErrBusy
}
