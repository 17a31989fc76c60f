package http

import (
	"bytes"
	"encoding/json"
	"sync/atomic"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// frameCache keeps the encoded stream messages of recent items. Every live
// follower of a reader gets the same bytes for an item (its id and data do
// not depend on the follower), so an item is encoded once per reader, not
// once per follower: at 10,000 followers that is most of a copy's cost.
// Slots are replaced without a lock; two streams that miss at once both
// encode, and either copy is right.
type frameCache struct {
	slots [frameSlots]atomic.Pointer[frame]
}

// frameSlots covers the items of a few seconds at any write rate the world
// sustains; an item older than that is encoded again, as a resume from the
// store reads it once anyway.
const frameSlots = 4096

type frame struct {
	seq     int64
	eventID string
	bytes   []byte
}

// get returns the message of e, encoding it on a miss.
func (c *frameCache) get(e domain.StoredFeedEntry, cursor func(domain.StoredFeedEntry) string) ([]byte, error) {
	slot := &c.slots[uint64(e.Seq)%frameSlots]
	if f := slot.Load(); f != nil && f.seq == e.Seq && f.eventID == e.EventID {
		return f.bytes, nil
	}
	b, err := encodeFrame(e, cursor(e))
	if err != nil {
		return nil, err
	}
	slot.Store(&frame{seq: e.Seq, eventID: e.EventID, bytes: b})
	return b, nil
}

// encodeFrame is one Server-Sent Events message: the item's cursor as the
// id, its view as the data.
func encodeFrame(e domain.StoredFeedEntry, id string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("id: ")
	b.WriteString(id)
	b.WriteString("\ndata: ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.Item.View()); err != nil {
		return nil, err
	}
	b.Truncate(b.Len() - 1) // the encoder's newline
	b.WriteString("\n\n")
	return b.Bytes(), nil
}
