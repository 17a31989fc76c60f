package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// permissionsDoc is a tenancy's permissions. Keyed by tenancy, so a plot
// claimed anew starts with the defaults without anything being reset.
type permissionsDoc struct {
	Tenancy            string   `bson:"_id"`
	PublicRead         bool     `bson:"public_read"`
	PublicWrite        bool     `bson:"public_write"`
	AllowedAgents      []string `bson:"allowed_agents"`
	BannedAgents       []string `bson:"banned_agents"`
	GovernanceOverride bool     `bson:"governance_override"`
}

// Permissions stores plot permissions.
type Permissions struct {
	coll *mongo.Collection
	db   *mongox.DB
}

// NewPermissions uses db's "plot_permissions" collection.
func NewPermissions(db *mongox.DB) *Permissions {
	return &Permissions{coll: db.Collection("plot_permissions"), db: db}
}

// Get returns a tenancy's permissions, the defaults when never set.
func (s *Permissions) Get(ctx context.Context, tenancy string) (domain.Permissions, error) {
	var d permissionsDoc
	err := s.coll.FindOne(ctx, bson.M{"_id": tenancy}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return domain.Permissions{AllowedAgents: []string{}, BannedAgents: []string{}}, nil
	}
	if err != nil {
		return domain.Permissions{}, fmt.Errorf("read permissions: %w", err)
	}
	return domain.Permissions{PublicRead: d.PublicRead, PublicWrite: d.PublicWrite, AllowedAgents: nonNil(d.AllowedAgents),
		BannedAgents: nonNil(d.BannedAgents), GovernanceOverride: d.GovernanceOverride}, nil
}

// Put replaces a tenancy's permissions (PUT semantics: the last one stands).
func (s *Permissions) Put(ctx context.Context, tenancy string, p domain.Permissions) error {
	d := permissionsDoc{Tenancy: tenancy, PublicRead: p.PublicRead, PublicWrite: p.PublicWrite,
		AllowedAgents: nonNil(p.AllowedAgents), BannedAgents: nonNil(p.BannedAgents), GovernanceOverride: p.GovernanceOverride}
	defer s.db.Lock(s.coll, tenancy)()
	if _, err := s.coll.ReplaceOne(ctx, bson.M{"_id": tenancy}, d, options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("store permissions: %w", err)
	}
	return nil
}

// DeleteTenancy removes an ended tenancy's permissions.
func (s *Permissions) DeleteTenancy(ctx context.Context, tenancy string) error {
	_, err := s.coll.DeleteOne(ctx, bson.M{"_id": tenancy})
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
