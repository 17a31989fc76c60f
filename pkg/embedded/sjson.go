package embedded

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

// FerretDB v1 on SQLite keeps each document as one JSON text, "SJSON":
// the JSON values with a schema under "$s" that says the BSON type of each
// field, since JSON alone cannot tell an int from a long or a date. The
// schema of a row lists its keys in order ("$k") and the type of each
// ("p"); an object's type carries its own schema, an array's the type of
// each item ("i"). A null value is null whatever the schema says.
// toBSON turns such a row into the BSON document FerretDB would answer
// with; a scan of a collection then costs a parse of the text and no more
// (FerretDB builds a document of boxed values from it, then encodes that
// for the wire, and the client decodes the wire again).

// sjsonSchema is the schema of a document: its keys in order, with types.
type sjsonSchema struct {
	Keys  []string             `json:"$k"`
	Props map[string]*sjsonTyp `json:"p"`
}

// sjsonTyp is the type of one value.
type sjsonTyp struct {
	T       string       `json:"t"`
	Schema  *sjsonSchema `json:"$s"`
	Options *string      `json:"o"`
	Items   []*sjsonTyp  `json:"i"`
	Subtype *byte        `json:"s"`
}

// schemas caches the parsed schemas of one scan by their text: the rows of
// a collection share a handful of them.
type schemas map[string]*sjsonSchema

var errSJSON = errors.New("not a stored FerretDB document")

// toBSON appends the BSON document of row to dst.
func (c schemas) toBSON(dst []byte, row []byte) ([]byte, error) {
	fields, err := objectFields(row)
	if err != nil {
		return nil, err
	}
	var sch *sjsonSchema
	rest := fields[:0]
	for _, f := range fields {
		if f.key != "$s" {
			rest = append(rest, f)
			continue
		}
		if sch = c[string(f.val)]; sch == nil {
			sch = &sjsonSchema{}
			if err := json.Unmarshal(f.val, sch); err != nil {
				return nil, fmt.Errorf("%w: schema: %w", errSJSON, err)
			}
			c[string(f.val)] = sch
		}
	}
	if sch == nil {
		return nil, fmt.Errorf("%w: no schema", errSJSON)
	}
	return appendDoc(dst, sch, rest)
}

func appendDoc(dst []byte, sch *sjsonSchema, fields []jsonField) ([]byte, error) {
	if len(fields) != len(sch.Keys) {
		return nil, fmt.Errorf("%w: %d keys in the schema, %d fields", errSJSON, len(sch.Keys), len(fields))
	}
	idx, dst := bsoncore.AppendDocumentStart(dst)
	for i, key := range sch.Keys {
		// the fields come in the schema's order; look further only if not
		f, ok := fields[i], fields[i].key == key
		for j := 0; !ok && j < len(fields); j++ {
			f, ok = fields[j], fields[j].key == key
		}
		if !ok {
			return nil, fmt.Errorf("%w: missing key %q", errSJSON, key)
		}
		var err error
		if dst, err = appendValue(dst, key, sch.Props[key], f.val); err != nil {
			return nil, err
		}
	}
	return bsoncore.AppendDocumentEnd(dst, idx)
}

func appendValue(dst []byte, key string, t *sjsonTyp, v []byte) ([]byte, error) {
	if string(v) == "null" {
		return bsoncore.AppendNullElement(dst, key), nil
	}
	if t == nil {
		return nil, fmt.Errorf("%w: no type for %q", errSJSON, key)
	}
	bad := func(err error) ([]byte, error) {
		return nil, fmt.Errorf("%w: %s %q: %w", errSJSON, t.T, key, err)
	}
	switch t.T {
	case "object":
		fields, err := objectFields(v)
		if err != nil {
			return bad(err)
		}
		sch := t.Schema
		if len(fields) == 0 {
			sch = &sjsonSchema{}
		} else if sch == nil {
			return bad(errors.New("no schema"))
		}
		dst = bsoncore.AppendHeader(dst, bson.TypeEmbeddedDocument, key)
		return appendDoc(dst, sch, fields)
	case "array":
		items, err := arrayItems(v)
		if err != nil {
			return bad(err)
		}
		if len(items) != len(t.Items) {
			return bad(fmt.Errorf("%d items, %d types", len(items), len(t.Items)))
		}
		dst = bsoncore.AppendHeader(dst, bson.TypeArray, key)
		idx, dst := bsoncore.AppendArrayStart(dst)
		for i, it := range items {
			if dst, err = appendValue(dst, strconv.Itoa(i), t.Items[i], it); err != nil {
				return nil, err
			}
		}
		return bsoncore.AppendArrayEnd(dst, idx)
	case "string":
		s, err := jsonString(v)
		if err != nil {
			return bad(err)
		}
		return bsoncore.AppendStringElement(dst, key, s), nil
	case "double":
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return bad(err)
		}
		return bsoncore.AppendDoubleElement(dst, key, f), nil
	case "int":
		n, err := strconv.ParseInt(string(v), 10, 32)
		if err != nil {
			return bad(err)
		}
		return bsoncore.AppendInt32Element(dst, key, int32(n)), nil
	case "long":
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return bad(err)
		}
		return bsoncore.AppendInt64Element(dst, key, n), nil
	case "date":
		ms, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return bad(err)
		}
		return bsoncore.AppendDateTimeElement(dst, key, ms), nil
	case "timestamp":
		n, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil {
			return bad(err)
		}
		return bsoncore.AppendTimestampElement(dst, key, uint32(n>>32), uint32(n)), nil
	case "bool":
		switch string(v) {
		case "true":
			return bsoncore.AppendBooleanElement(dst, key, true), nil
		case "false":
			return bsoncore.AppendBooleanElement(dst, key, false), nil
		}
		return bad(errors.New("not a boolean"))
	case "objectId":
		s, err := jsonString(v)
		if err != nil {
			return bad(err)
		}
		var id primitive.ObjectID
		if n, err := hex.Decode(id[:], []byte(s)); err != nil || n != len(id) || len(s) != 2*len(id) {
			return bad(fmt.Errorf("not an ObjectID: %q", s))
		}
		return bsoncore.AppendObjectIDElement(dst, key, id), nil
	case "binData":
		s, err := jsonString(v)
		if err != nil {
			return bad(err)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || t.Subtype == nil {
			return bad(fmt.Errorf("binary: %w", err))
		}
		// Written by hand: for subtype 2 (the old binary) bsoncore adds an
		// inner length, while FerretDB stores and answers the bytes as the
		// client sent them, inner length included.
		dst = bsoncore.AppendHeader(dst, bson.TypeBinary, key)
		dst = bsoncore.AppendInt32(dst, int32(len(b)))
		dst = append(dst, *t.Subtype)
		return append(dst, b...), nil
	case "regex":
		s, err := jsonString(v)
		if err != nil || t.Options == nil {
			return bad(fmt.Errorf("regex: %w", err))
		}
		return bsoncore.AppendRegexElement(dst, key, s, *t.Options), nil
	case "null":
		return bad(errors.New("a null type with a value"))
	}
	return bad(errors.New("unknown type"))
}
