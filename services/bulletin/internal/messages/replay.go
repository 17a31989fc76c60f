package messages

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"

	"sharedworld.dev/pkg/events"
)

// Replay reads every partition of topics from its first retained message to
// the end it had when the replay started, and hands each event to apply in
// partition order (one aggregate's events keep their order). A rebuild needs
// the topics to retain every event.
func Replay(ctx context.Context, brokers []string, topics []string, apply func(context.Context, events.Event) error) (int, error) {
	partitions, err := readPartitions(ctx, brokers, topics)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, p := range partitions {
		n, err := replayPartition(ctx, brokers, p, apply)
		total += n
		if err != nil {
			return total, fmt.Errorf("replay %s/%d: %w", p.Topic, p.ID, err)
		}
	}
	return total, nil
}

func readPartitions(ctx context.Context, brokers []string, topics []string) ([]kafka.Partition, error) {
	var last error
	for _, b := range brokers {
		conn, err := kafka.DialContext(ctx, "tcp", b)
		if err != nil {
			last = err
			continue
		}
		parts, err := conn.ReadPartitions(topics...)
		_ = conn.Close()
		if err != nil {
			return nil, fmt.Errorf("list partitions: %w", err)
		}
		return parts, nil
	}
	return nil, fmt.Errorf("no broker reachable: %w", last)
}

func replayPartition(ctx context.Context, brokers []string, p kafka.Partition, apply func(context.Context, events.Event) error) (int, error) {
	leader := fmt.Sprintf("%s:%d", p.Leader.Host, p.Leader.Port)
	conn, err := kafka.DialLeader(ctx, "tcp", leader, p.Topic, p.ID)
	if err != nil {
		return 0, fmt.Errorf("dial partition leader: %w", err)
	}
	first, end, err := conn.ReadOffsets()
	_ = conn.Close()
	if err != nil {
		return 0, fmt.Errorf("read offsets: %w", err)
	}
	if end <= first {
		return 0, nil
	}
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, Topic: p.Topic, Partition: p.ID,
		MinBytes: 1, MaxBytes: 10 << 20, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	if err := r.SetOffset(first); err != nil {
		return 0, err
	}
	n := 0
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return n, err
		}
		// A message that is not an event, or an event that can never
		// apply, is skipped as the live consumer skips it.
		if e, err := events.FromMessage(m); err == nil {
			if err := apply(ctx, e); err != nil && !errors.Is(err, events.ErrPermanent) {
				return n, fmt.Errorf("event at offset %d: %w", m.Offset, err)
			}
		}
		n++
		if m.Offset >= end-1 {
			return n, nil
		}
	}
}
