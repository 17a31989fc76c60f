package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// MaxDocumentBytes bounds the encoded bulletin: it stays under 1 MiB at any
// population (CONTRACT §11).
const MaxDocumentBytes = 1<<20 - 1

// ErrDocumentTooLarge means the document would not fit even with no plots;
// the content limits make that impossible, so it signals a broken limit.
var ErrDocumentTooLarge = errors.New("bulletin document over 1 MiB")

// Encode renders the document as compact JSON. HTML characters are not
// escaped: the document is JSON for agents, not markup, and escaping would
// make every < in a text six bytes long.
//
// Every list but plots has a fixed length and bounded elements. Plots is
// "at most the first 1000" (CONTRACT §11); when long names in every list
// would push the document to 1 MiB, plots are cut from the end until it
// fits. At realistic sizes the cut never happens.
func Encode(b Bulletin) ([]byte, error) {
	for {
		out, err := encode(b)
		if err != nil {
			return nil, err
		}
		excess := len(out) - MaxDocumentBytes
		if excess <= 0 {
			return out, nil
		}
		if len(b.Plots) == 0 {
			return nil, fmt.Errorf("%w: %d bytes without plots", ErrDocumentTooLarge, len(out))
		}
		plotsBytes, err := json.Marshal(b.Plots)
		if err != nil {
			return nil, err
		}
		perPlot := len(plotsBytes)/len(b.Plots) + 1
		cut := min(len(b.Plots), excess/perPlot+1)
		b.Plots = b.Plots[:len(b.Plots)-cut]
	}
}

func encode(b Bulletin) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return nil, fmt.Errorf("encode bulletin: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
