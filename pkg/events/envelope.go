// Package events is the event pipeline: the CloudEvents-on-Kafka envelope
// (binary mode: ce_* headers, protobuf value), the same-document outbox, the
// relay that publishes it, and the idempotent consumer.
package events

import (
	"fmt"
	"time"

	cloudevents "github.com/cloudevents/sdk-go/v2/event"
	"github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/proto"

	"sharedworld.dev/proto/catalog"
)

// ContentType of every event value.
const ContentType = "application/protobuf"

// Event is one domain event with its CloudEvents context attributes.
type Event struct {
	ID      string    `bson:"id"`
	Type    string    `bson:"type"`
	Source  string    `bson:"source"`
	Time    time.Time `bson:"time"`
	Subject string    `bson:"subject"` // the aggregate id; also the Kafka key
	Topic   string    `bson:"topic"`
	Data    []byte    `bson:"data"`
}

// New wraps a catalog message as an event of its catalog type and topic.
// The id is random; source names the publishing service ("/services/tickets").
func New(source, subject string, msg proto.Message, at time.Time) (Event, error) {
	typ, ok := catalog.TypeOf(msg)
	if !ok {
		return Event{}, fmt.Errorf("event %T is not in the catalog", msg)
	}
	topic, _ := catalog.TopicOf(typ)
	data, err := proto.Marshal(msg)
	if err != nil {
		return Event{}, fmt.Errorf("marshal %s: %w", typ, err)
	}
	e := Event{ID: newEventID(), Type: typ, Source: source, Time: at.UTC(), Subject: subject, Topic: topic, Data: data}
	return e, e.validate()
}

// MustNew is New for messages known to be in the catalog (a programming error otherwise).
func MustNew(source, subject string, msg proto.Message, at time.Time) Event {
	e, err := New(source, subject, msg, at)
	if err != nil {
		panic(err)
	}
	return e
}

// validate checks the CloudEvents context attributes with the SDK.
func (e Event) validate() error {
	ce := cloudevents.New(cloudevents.CloudEventsVersionV1)
	ce.SetID(e.ID)
	ce.SetType(e.Type)
	ce.SetSource(e.Source)
	ce.SetTime(e.Time)
	ce.SetSubject(e.Subject)
	ce.SetDataContentType(ContentType)
	if err := ce.Validate(); err != nil {
		return fmt.Errorf("invalid CloudEvent %s: %w", e.Type, err)
	}
	return nil
}

// Decode unmarshals the payload into a fresh catalog message of the event's type.
func (e Event) Decode() (proto.Message, error) {
	m, ok := catalog.New(e.Type)
	if !ok {
		return nil, fmt.Errorf("event type %q is not in the catalog", e.Type)
	}
	if err := proto.Unmarshal(e.Data, m); err != nil {
		return nil, fmt.Errorf("unmarshal %s %s: %w", e.Type, e.ID, err)
	}
	return m, nil
}

// Header names of the CloudEvents Kafka binary binding.
const (
	HeaderID          = "ce_id"
	HeaderType        = "ce_type"
	HeaderSource      = "ce_source"
	HeaderTime        = "ce_time"
	HeaderSpecVersion = "ce_specversion"
	HeaderSubject     = "ce_subject"
	HeaderContentType = "content-type"
)

// Message renders the event in the CloudEvents Kafka binary binding.
func (e Event) Message() kafka.Message {
	return kafka.Message{
		Topic: e.Topic,
		Key:   []byte(e.Subject),
		Value: e.Data,
		Time:  e.Time,
		Headers: []kafka.Header{
			{Key: HeaderSpecVersion, Value: []byte(cloudevents.CloudEventsVersionV1)},
			{Key: HeaderID, Value: []byte(e.ID)},
			{Key: HeaderType, Value: []byte(e.Type)},
			{Key: HeaderSource, Value: []byte(e.Source)},
			{Key: HeaderTime, Value: []byte(e.Time.UTC().Format(time.RFC3339Nano))},
			{Key: HeaderSubject, Value: []byte(e.Subject)},
			{Key: HeaderContentType, Value: []byte(ContentType)},
		},
	}
}

// FromMessage reads an event from a Kafka message in the binary binding.
func FromMessage(m kafka.Message) (Event, error) {
	e := Event{Topic: m.Topic, Data: m.Value, Subject: string(m.Key)}
	var spec, ts string
	for _, h := range m.Headers {
		switch h.Key {
		case HeaderID:
			e.ID = string(h.Value)
		case HeaderType:
			e.Type = string(h.Value)
		case HeaderSource:
			e.Source = string(h.Value)
		case HeaderTime:
			ts = string(h.Value)
		case HeaderSubject:
			e.Subject = string(h.Value)
		case HeaderSpecVersion:
			spec = string(h.Value)
		}
	}
	if spec != cloudevents.CloudEventsVersionV1 {
		return e, fmt.Errorf("message at %s/%d/%d is not a CloudEvent (ce_specversion %q)", m.Topic, m.Partition, m.Offset, spec)
	}
	if ts != "" {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return e, fmt.Errorf("event %s: bad ce_time %q", e.ID, ts)
		}
		e.Time = t
	}
	return e, e.validate()
}
