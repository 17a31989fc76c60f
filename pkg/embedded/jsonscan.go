package embedded

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// A small JSON splitter for the rows of FerretDB's files (sjson.go): it
// finds where each value of an object or array starts and ends without
// decoding it, so that each value is read once, by the type its schema
// names. encoding/json would decode the row into a map of raw values
// first, which is what made FerretDB's own reading slow.

var errJSON = errors.New("malformed JSON")

type jsonField struct {
	key string
	val []byte
}

// objectFields splits a JSON object into its fields, in order.
func objectFields(b []byte) ([]jsonField, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errJSON
	}
	var out []jsonField
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, trailing(b, i+1)
	}
	for {
		end, err := skipValue(b, i)
		if err != nil || b[i] != '"' {
			return nil, errJSON
		}
		key, err := jsonString(b[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errJSON
		}
		i = skipSpace(b, i+1)
		if end, err = skipValue(b, i); err != nil {
			return nil, err
		}
		out = append(out, jsonField{key: key, val: b[i:end]})
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, errJSON
		}
		if b[i] == '}' {
			return out, trailing(b, i+1)
		}
		if b[i] != ',' {
			return nil, errJSON
		}
		i = skipSpace(b, i+1)
	}
}

// arrayItems splits a JSON array into its items.
func arrayItems(b []byte) ([][]byte, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, errJSON
	}
	var out [][]byte
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, trailing(b, i+1)
	}
	for {
		end, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		out = append(out, b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, errJSON
		}
		if b[i] == ']' {
			return out, trailing(b, i+1)
		}
		if b[i] != ',' {
			return nil, errJSON
		}
		i = skipSpace(b, i+1)
	}
}

// jsonString decodes a JSON string; one without escapes is its bytes.
func jsonString(b []byte) (string, error) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", errJSON
	}
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", errJSON
	}
	return s, nil
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errJSON
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns where the value starting at b[i] ends. It checks the
// nesting and the strings; the scalars are checked by whoever reads them.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, errJSON
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipValue(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errJSON
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	if j == i {
		return 0, errJSON
	}
	return j, nil
}
