package testkit

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// StreamItem is one message of the feed's event stream as tests check it:
// its event id, the stream position inside that id, and the item's id.
type StreamItem struct {
	EventID string
	Seq     int64
	ItemID  string
}

// ReadStream reads the feed's event-stream messages from r and hands each
// to each until it returns false. The stream ending is no error (the
// caller resumes or compares what it read with what it wanted); a message
// that is not an item with a well-formed id is.
func ReadStream(r io.Reader, each func(StreamItem) bool) error {
	rd := bufio.NewReader(r)
	var id, data string
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			return nil //nolint:nilerr // the stream ended: see above
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		case line == "" && data != "":
			var item struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal([]byte(data), &item); err != nil {
				return fmt.Errorf("data is not JSON: %q", data)
			}
			seq, err := StreamSeq(id)
			if err != nil {
				return err
			}
			if !each(StreamItem{EventID: id, Seq: seq, ItemID: item.ID}) {
				return nil
			}
			id, data = "", ""
		}
	}
}

// StreamSeq reads the stream position out of an event id. The id is
// opaque to clients; tests look inside to check the order.
func StreamSeq(id string) (int64, error) {
	raw, err := base64.RawURLEncoding.DecodeString(id)
	var pos struct {
		Seq int64 `json:"s"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &pos)
	}
	if err == nil && pos.Seq <= 0 {
		err = errors.New("no seq")
	}
	if err != nil {
		return 0, fmt.Errorf("event id %q: %w", id, err)
	}
	return pos.Seq, nil
}
