package embedded_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/embedded"
)

// Four processes' clients raise one counter with version-guarded updates,
// as mongox does for replicas: through the gate no raise is lost (on
// FerretDB v1 alone two clients can both match the same version).
func TestWriteGateMakesGuardedUpdatesAtomicAcrossConnections(t *testing.T) {
	ctx := context.Background()
	m, err := embedded.StartMongo(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	u, _ := url.Parse(m.URI)
	gate, err := embedded.NewWriteGate("127.0.0.1:0", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	const clients, raises = 4, 30
	var colls []*mongo.Collection
	for range clients {
		c, err := mongo.Connect(ctx, options.Client().ApplyURI(gate.URI(m.URI)))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Disconnect(ctx)
		colls = append(colls, c.Database("gate").Collection("counter"))
	}
	if _, err := colls[0].InsertOne(ctx, bson.M{"_id": "n", "version": int64(0), "n": int64(0)}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, coll := range colls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < raises; {
				var doc struct {
					Version int64 `bson:"version"`
					N       int64 `bson:"n"`
				}
				if err := coll.FindOne(ctx, bson.M{"_id": "n"}).Decode(&doc); err != nil {
					t.Error(err)
					return
				}
				res, err := coll.UpdateOne(ctx, bson.M{"_id": "n", "version": doc.Version},
					bson.M{"$set": bson.M{"version": doc.Version + 1, "n": doc.N + 1}})
				if err != nil {
					t.Error(err)
					return
				}
				if res.ModifiedCount == 1 {
					done++
				}
			}
		}()
	}
	wg.Wait()
	var doc struct {
		N int64 `bson:"n"`
	}
	if err := colls[0].FindOne(ctx, bson.M{"_id": "n"}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.N != clients*raises {
		t.Fatalf("%d raises acknowledged, the counter says %d: a guarded update was not atomic", clients*raises, doc.N)
	}
}

// Connections that end while their writes wait for the gate (the server
// side closing, as a crashed or restarted database does) never keep the
// lock: a write after them is still answered.
func TestWriteGateLetsGoOfConnectionsThatEnd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(n int32) {
				defer c.Close()
				for {
					if n%2 == 1 {
						return // every other server side ends at once
					}
					msg, err := readWire(c)
					if err != nil {
						return
					}
					answer := append([]byte(nil), msg...)
					binary.LittleEndian.PutUint32(answer[8:12], binary.LittleEndian.Uint32(msg[4:8]))
					if _, err := c.Write(answer); err != nil {
						return
					}
				}
			}(accepted.Add(1))
		}
	}()
	gate, err := embedded.NewWriteGate("127.0.0.1:0", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	addr := strings.TrimSuffix(strings.TrimPrefix(gate.URI("mongodb://x/"), "mongodb://"), "/")
	write := func(id uint32) error {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write(insertMessage(id)); err != nil {
			return err
		}
		_, err = readWire(c)
		return err
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = write(uint32(i + 1)) }()
	}
	wg.Wait()
	// the next connection is an even one (answered) or, if odd, the one after it
	for i := range 2 {
		if err := write(uint32(100 + i)); err == nil {
			return
		} else if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("a write waited 5 s for the gate: a connection that ended kept the lock")
		}
	}
	t.Fatal("no write was answered after the connections that ended")
}

// insertMessage is an OP_MSG {insert: "c"} with requestID id.
func insertMessage(id uint32) []byte {
	doc := []byte{0, 0, 0, 0, 0x02}
	doc = append(doc, "insert\x00"...)
	doc = binary.LittleEndian.AppendUint32(doc, 2)
	doc = append(doc, "c\x00\x00"...)
	binary.LittleEndian.PutUint32(doc, uint32(len(doc)))
	msg := make([]byte, 16, 16+5+len(doc))
	binary.LittleEndian.PutUint32(msg[4:], id)
	binary.LittleEndian.PutUint32(msg[12:], 2013)
	msg = append(msg, 0, 0, 0, 0, 0)
	msg = append(msg, doc...)
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
	return msg
}

func readWire(c net.Conn) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return nil, err
	}
	msg := make([]byte, binary.LittleEndian.Uint32(head[:]))
	copy(msg, head[:])
	_, err := io.ReadFull(c, msg[4:])
	return msg, err
}

// A write to one database waits only for writes to that database: with a
// write to "stuck" left unanswered by the server (its lock held for good),
// a write to "free" is answered.
func TestWriteGateLocksPerDatabase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for {
					msg, err := readWire(c)
					if err != nil {
						return
					}
					if strings.Contains(string(msg), "stuck") {
						continue // never answered: its write holds its lock
					}
					answer := append([]byte(nil), msg...)
					binary.LittleEndian.PutUint32(answer[8:12], binary.LittleEndian.Uint32(msg[4:8]))
					if _, err := c.Write(answer); err != nil {
						return
					}
				}
			}()
		}
	}()
	gate, err := embedded.NewWriteGate("127.0.0.1:0", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	addr := strings.TrimSuffix(strings.TrimPrefix(gate.URI("mongodb://x/"), "mongodb://"), "/")
	send := func(id uint32, db string, wait time.Duration) error {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(wait))
		if _, err := c.Write(insertInto(t, id, db)); err != nil {
			return err
		}
		_, err = readWire(c)
		return err
	}
	if err := send(1, "stuck", 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server answered a write to the stuck database: %v", err)
	}
	// that write holds the stuck database's lock for good
	if err := send(2, "free", 5*time.Second); err != nil {
		t.Fatalf("a write to another database waited for the stuck one: %v", err)
	}
}

// insertInto is an OP_MSG {insert: "c", $db: db} with requestID id.
func insertInto(t *testing.T, id uint32, db string) []byte {
	t.Helper()
	doc, err := bson.Marshal(bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: db}})
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 16, 16+5+len(doc))
	binary.LittleEndian.PutUint32(msg[4:], id)
	binary.LittleEndian.PutUint32(msg[12:], 2013)
	msg = append(msg, 0, 0, 0, 0, 0)
	msg = append(msg, doc...)
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
	return msg
}
