// Package signal carries the aggregator's head to every reader over Kafka:
// one single-partition topic of small messages, each the whole head (how
// far the feed is settled, which document and map are current). Kafka,
// because every replica already speaks to it and FerretDB has no change
// streams to watch the store with; each reader tails the topic from its
// end without a consumer group, so every reader sees every signal in the
// order the leaders sent them. A signal is a hint, not a record: readers
// read what it names from the store, and read the stored head now and
// then, so a lost signal delays a reader but never loses an item.
package signal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/segmentio/kafka-go"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Topic is the heads' topic.
const Topic = "world.bulletin.head"

type headMessage struct {
	Settled int64  `json:"settled"`
	ETag    string `json:"etag"`
	MapETag string `json:"map_etag"`
}

// Sender publishes heads.
type Sender struct{ Pub events.Publisher }

// Send publishes h.
func (s Sender) Send(ctx context.Context, h domain.Head) error {
	b, err := json.Marshal(headMessage{Settled: h.Settled, ETag: h.ETag, MapETag: h.MapETag})
	if err != nil {
		return err
	}
	return s.Pub.WriteMessages(ctx, kafka.Message{Topic: Topic, Key: []byte("head"), Value: b})
}

// Receive tails the topic from its end and hands each head to out (the
// newest only, when the reader of out is busy) until ctx ends.
func Receive(ctx context.Context, brokers []string, log *slog.Logger, out chan domain.Head) {
	for ctx.Err() == nil {
		if err := tail(ctx, brokers, out); err != nil && ctx.Err() == nil {
			log.Warn("bulletin head signal: reading failed; reconnecting", slog.String("error", err.Error()))
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

func tail(ctx context.Context, brokers []string, out chan domain.Head) error {
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: brokers, Topic: Topic, Partition: 0,
		MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 500 * time.Millisecond,
		StartOffset: kafka.LastOffset, ReadBackoffMin: 10 * time.Millisecond, ReadBackoffMax: 200 * time.Millisecond,
	})
	defer r.Close()
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				return nil
			}
			return err
		}
		var hm headMessage
		if err := json.Unmarshal(m.Value, &hm); err != nil {
			return fmt.Errorf("head message at offset %d: %w", m.Offset, err)
		}
		offer(out, domain.Head{Settled: hm.Settled, ETag: hm.ETag, MapETag: hm.MapETag})
	}
}

// offer hands h over without waiting: a head left unread is replaced, as
// the newer one covers it.
func offer(out chan domain.Head, h domain.Head) {
	for {
		select {
		case out <- h:
			return
		default:
		}
		select {
		case <-out:
		default:
		}
	}
}
