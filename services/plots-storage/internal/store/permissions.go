package store

import (
	"context"
	"errors"
	"fmt"

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

func (d permissionsDoc) permissions() domain.Permissions {
	return domain.Permissions{PublicRead: d.PublicRead, PublicWrite: d.PublicWrite, AllowedAgents: nonNil(d.AllowedAgents),
		BannedAgents: nonNil(d.BannedAgents), GovernanceOverride: d.GovernanceOverride}
}

// Permissions stores plot permissions.
type Permissions struct {
	docs *docs[permissionsDoc]
}

// NewPermissions uses db's "plot_permissions" collection.
func NewPermissions(db *mongox.DB) *Permissions {
	return &Permissions{docs: mongox.NewDocs[permissionsDoc, eventOf](db, "plot_permissions", nil)}
}

// Get returns a tenancy's permissions, the defaults when never set.
func (s *Permissions) Get(ctx context.Context, tenancy string) (domain.Permissions, error) {
	d, err := s.docs.Get(ctx, tenancy)
	if errors.Is(err, mongox.ErrNotFound) {
		return permissionsDoc{}.permissions(), nil
	}
	if err != nil {
		return domain.Permissions{}, fmt.Errorf("read permissions: %w", err)
	}
	return d.permissions(), nil
}

// Put replaces a tenancy's permissions (PUT semantics: the last one stands).
func (s *Permissions) Put(ctx context.Context, tenancy string, p domain.Permissions) error {
	to := func(p domain.Permissions) permissionsDoc {
		return permissionsDoc{Tenancy: tenancy, PublicRead: p.PublicRead, PublicWrite: p.PublicWrite,
			AllowedAgents: nonNil(p.AllowedAgents), BannedAgents: nonNil(p.BannedAgents), GovernanceOverride: p.GovernanceOverride}
	}
	_, err := change(ctx, s.docs, tenancy, func() domain.Permissions { return domain.Permissions{} }, to, permissionsDoc.permissions,
		func(cur *domain.Permissions) ([]domain.Event, error) {
			*cur = p
			return nil, nil
		})
	if err != nil {
		return fmt.Errorf("store permissions: %w", err)
	}
	return nil
}

// DeleteTenancy removes an ended tenancy's permissions.
func (s *Permissions) DeleteTenancy(ctx context.Context, tenancy string) error {
	if err := s.docs.Delete(ctx, tenancy, nil); err != nil && !errors.Is(err, mongox.ErrNotFound) {
		return err
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
