package faults

import (
	"context"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"

	"sharedworld.dev/proto/catalog"
)

// Redeliver produces every message of every topic of the catalog once more,
// key, value and headers unchanged: the duplicate delivery a producer retry
// or an outbox relay resending after a crash makes, for every event at once.
// It returns how many messages it produced again.
func Redeliver(ctx context.Context, brokers []string) (int, error) {
	ends, err := endOffsets(ctx, brokers)
	if err != nil {
		return 0, err
	}
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Hash{}, RequiredAcks: kafka.RequireAll, BatchSize: 500, BatchTimeout: 10 * time.Millisecond}
	defer w.Close()
	total := 0
	for tp, end := range ends {
		if end == 0 {
			continue
		}
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, Topic: tp.topic, Partition: tp.partition, MinBytes: 1, MaxBytes: 10 << 20, MaxWait: 100 * time.Millisecond})
		var batch []kafka.Message
		for {
			m, err := r.ReadMessage(ctx)
			if err != nil {
				r.Close()
				return total, fmt.Errorf("read %s: %w", tp.topic, err)
			}
			batch = append(batch, kafka.Message{Topic: m.Topic, Key: m.Key, Value: m.Value, Headers: m.Headers})
			if m.Offset >= end-1 {
				break
			}
		}
		r.Close()
		if err := w.WriteMessages(ctx, batch...); err != nil {
			return total, fmt.Errorf("produce %s again: %w", tp.topic, err)
		}
		total += len(batch)
	}
	return total, nil
}

type topicPartition struct {
	topic     string
	partition int
}

// endOffsets is the next offset of every partition of every catalog topic.
func endOffsets(ctx context.Context, brokers []string) (map[topicPartition]int64, error) {
	client := &kafka.Client{Addr: kafka.TCP(brokers...), Timeout: 10 * time.Second}
	meta, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: catalog.AllTopics()})
	if err != nil {
		return nil, err
	}
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for _, t := range meta.Topics {
		for _, p := range t.Partitions {
			req.Topics[t.Name] = append(req.Topics[t.Name], kafka.LastOffsetOf(p.ID))
		}
	}
	resp, err := client.ListOffsets(ctx, req)
	if err != nil {
		return nil, err
	}
	out := map[topicPartition]int64{}
	for topic, parts := range resp.Topics {
		for _, p := range parts {
			if p.Error != nil {
				return nil, fmt.Errorf("offsets of %s: %w", topic, p.Error)
			}
			out[topicPartition{topic, p.Partition}] = p.LastOffset
		}
	}
	return out, nil
}

// Lag is how many messages the consumer groups have yet to commit, summed
// over every group and every partition it has committed on.
func Lag(ctx context.Context, brokers []string) (int64, error) {
	ends, err := endOffsets(ctx, brokers)
	if err != nil {
		return 0, err
	}
	client := &kafka.Client{Addr: kafka.TCP(brokers...), Timeout: 10 * time.Second}
	groups, err := client.ListGroups(ctx, &kafka.ListGroupsRequest{})
	if err != nil {
		return 0, err
	}
	topics := map[string][]int{}
	for tp := range ends {
		topics[tp.topic] = append(topics[tp.topic], tp.partition)
	}
	var lag int64
	for _, g := range groups.Groups {
		resp, err := client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: g.GroupID, Topics: topics})
		if err != nil {
			return 0, err
		}
		if resp.Error != nil {
			return 0, resp.Error
		}
		for topic, parts := range resp.Topics {
			for _, p := range parts {
				if p.CommittedOffset >= 0 {
					lag += max(0, ends[topicPartition{topic, p.Partition}]-p.CommittedOffset)
				}
			}
		}
	}
	return lag, nil
}

// WaitCaughtUp polls Lag until it is zero or within passes.
func WaitCaughtUp(ctx context.Context, brokers []string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		lag, err := Lag(ctx, brokers)
		if err == nil && lag == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the consumers are %d events behind after %v (last error: %v)", lag, within, err) //nolint:errorlint // the error may be nil (an answer with a status): printed, not wrapped
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
