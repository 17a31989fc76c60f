// Package devidp is the development identity provider (CONTRACT §2): it
// issues Ed25519-signed certificates, keeps a revocation list and publishes
// its keys, so anyone can try the world without the external provider.
// Services trust it exactly as they trust a real provider: through auth.Provider.
package devidp

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/problem"
)

// KeyID is the development provider's signing key id.
const KeyID = "dev-1"

// Provider is the development identity provider, persisted in MongoDB so
// that certificates stay valid across restarts.
type Provider struct {
	issuer  auth.Issuer
	keys    *mongo.Collection
	agents  *mongo.Collection
	revoked *mongo.Collection
}

type keyDoc struct {
	Kid       string    `bson:"_id"`
	Seed      []byte    `bson:"seed"`
	CreatedAt time.Time `bson:"created_at"`
}

// Open loads the provider's key from db, creating it on first start.
func Open(ctx context.Context, db *mongox.DB, prefix string) (*Provider, error) {
	p := &Provider{keys: db.Collection("idp_keys"), agents: db.Collection("idp_agents"), revoked: db.Collection("idp_revocations")}
	var k keyDoc
	err := p.keys.FindOne(ctx, bson.M{"_id": KeyID}).Decode(&k)
	if errors.Is(err, mongo.ErrNoDocuments) {
		seed := make([]byte, ed25519.SeedSize)
		_, _ = rand.Read(seed)
		k = keyDoc{Kid: KeyID, Seed: seed, CreatedAt: time.Now().UTC()}
		if _, err = p.keys.InsertOne(ctx, k); mongo.IsDuplicateKeyError(err) {
			err = p.keys.FindOne(ctx, bson.M{"_id": KeyID}).Decode(&k)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("load development provider key: %w", err)
	}
	p.issuer = auth.Issuer{Name: "shared-world-dev-idp", Kid: k.Kid, Key: ed25519.NewKeyFromSeed(k.Seed), Prefix: prefix}
	return p, nil
}

// Issued is the answer to a registration.
type Issued struct {
	AgentID    string
	Cert       json.RawMessage
	PrivateKey string // base64 Ed25519 seed; empty when the agent sent its own public key
}

// Register issues a certificate for agentName. With no publicKey it makes a
// key pair and returns the private seed (the agent must keep it).
func (p *Provider) Register(ctx context.Context, agentName, publicKey string, now time.Time) (Issued, error) {
	var pub ed25519.PublicKey
	var out Issued
	if publicKey == "" {
		var priv ed25519.PrivateKey
		pub, priv, _ = ed25519.GenerateKey(nil)
		out.PrivateKey = base64.StdEncoding.EncodeToString(priv.Seed())
	} else {
		b, err := base64.StdEncoding.DecodeString(publicKey)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return out, problem.Invalid("public_key is not a base64 Ed25519 public key.", "Send the 32-byte Ed25519 public key in standard base64, or omit public_key to get a generated key pair.")
		}
		pub = b
	}
	id, cert, err := p.issuer.Issue(agentName, pub, now, nil)
	if err != nil {
		return out, err
	}
	if _, err := p.agents.InsertOne(ctx, bson.M{"_id": id, "agent_name": agentName, "issued_at": now}); err != nil {
		return out, fmt.Errorf("record issued agent: %w", err)
	}
	out.AgentID, out.Cert = id, cert
	return out, nil
}

// ErrUnknownAgent means the provider never issued this agent_id.
var ErrUnknownAgent = problem.NotFound("This provider never issued that agent_id.", "Check the agent_id from POST /dev/idp/register.")

// Revoke adds agentID to the revocation list; revoking twice keeps the first time.
func (p *Provider) Revoke(ctx context.Context, agentID string, now time.Time) (time.Time, error) {
	if err := p.agents.FindOne(ctx, bson.M{"_id": agentID}).Err(); err != nil {
		if errors.Is(err, mongo.ErrNoDocuments) {
			return time.Time{}, ErrUnknownAgent
		}
		return time.Time{}, err
	}
	var doc struct {
		RevokedAt time.Time `bson:"revoked_at"`
	}
	err := p.revoked.FindOneAndUpdate(ctx, bson.M{"_id": agentID}, bson.M{"$setOnInsert": bson.M{"revoked_at": now}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&doc)
	if err != nil {
		return time.Time{}, fmt.Errorf("revoke: %w", err)
	}
	return doc.RevokedAt, nil
}

// Keys returns the provider's public keys (auth.Provider).
func (p *Provider) Keys(context.Context) ([]auth.Key, error) {
	return []auth.Key{{Kid: p.issuer.Kid, PublicKey: p.issuer.PublicKey()}}, nil
}

// Revocations returns the revocation list (auth.Provider).
func (p *Provider) Revocations(ctx context.Context) ([]auth.Revocation, error) {
	type revoked struct {
		ID        string    `bson:"_id"`
		RevokedAt time.Time `bson:"revoked_at"`
	}
	docs, err := mongox.FindAll[revoked](ctx, p.revoked, bson.M{}, options.Find().SetSort(bson.D{{Key: "revoked_at", Value: 1}}))
	if err != nil {
		return nil, err
	}
	out := make([]auth.Revocation, len(docs))
	for i, d := range docs {
		out[i] = auth.Revocation{AgentID: d.ID, RevokedAt: d.RevokedAt}
	}
	return out, nil
}

// Issuer exposes the signing identity (the runner's verifier trusts its key).
func (p *Provider) Issuer() auth.Issuer { return p.issuer }
