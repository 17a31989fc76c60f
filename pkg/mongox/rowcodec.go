package mongox

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/fxamacker/cbor/v2"
)

// The rows of a Mirror are written to a snapshot in CBOR. The encoding
// must give back exactly the row that was written (a restart from the
// snapshot answers as a restart from a scan), so the codec is set up to
// keep what the stores rely on: instants with nanoseconds and offset, nil
// apart from empty slices and maps, nil pointers apart from pointers to
// zero values. What CBOR cannot carry exactly (unexported fields, interface
// values, fields a json or cbor tag hides or omits when empty) makes a row
// type unfit for snapshots: rowSchema refuses it and its copy is scanned.

var (
	rowEnc cbor.EncMode
	rowDec cbor.DecMode
)

func init() {
	var err error
	if rowEnc, err = (cbor.EncOptions{Time: cbor.TimeRFC3339Nano, NilContainers: cbor.NilContainerAsNull}).EncMode(); err != nil {
		panic(err)
	}
	if rowDec, err = (cbor.DecOptions{MaxArrayElements: math.MaxInt32, MaxMapPairs: math.MaxInt32}).DecMode(); err != nil {
		panic(err)
	}
}

// snapshotFormat changes when the file or the codec changes, which makes
// every older snapshot a scan.
const snapshotFormat = 1

var (
	timeType          = reflect.TypeFor[time.Time]()
	binaryMarshaler   = reflect.TypeFor[encoding.BinaryMarshaler]()
	binaryUnmarshaler = reflect.TypeFor[encoding.BinaryUnmarshaler]()
	cborMarshaler     = reflect.TypeFor[cbor.Marshaler]()
	cborUnmarshaler   = reflect.TypeFor[cbor.Unmarshaler]()
)

// rowSchema describes row type t as far as the encoding depends on it
// (type names, kinds, field names and tags, recursively): a snapshot holds
// the schema of each copy's rows, and a row type that changed between two
// runs makes its snapshot a scan. It refuses a type the codec could not
// give back exactly.
func rowSchema(t reflect.Type) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "format %d;", snapshotFormat)
	if err := describe(&b, t, map[reflect.Type]bool{}); err != nil {
		return "", fmt.Errorf("row type %s cannot be kept in a snapshot: %w", t, err)
	}
	return b.String(), nil
}

func describe(b *strings.Builder, t reflect.Type, seen map[reflect.Type]bool) error {
	if t == timeType {
		b.WriteString("time.Time")
		return nil
	}
	for _, m := range []reflect.Type{binaryMarshaler, binaryUnmarshaler, cborMarshaler, cborUnmarshaler} {
		if t.Kind() != reflect.Pointer && (t.Implements(m) || reflect.PointerTo(t).Implements(m)) {
			return fmt.Errorf("%s has its own binary encoding", t)
		}
	}
	fmt.Fprintf(b, "%s.%s:%s", t.PkgPath(), t.Name(), t.Kind())
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return nil
	case reflect.Pointer, reflect.Slice:
		b.WriteString("(")
		defer b.WriteString(")")
		return describe(b, t.Elem(), seen)
	case reflect.Array:
		fmt.Fprintf(b, "[%d](", t.Len())
		defer b.WriteString(")")
		return describe(b, t.Elem(), seen)
	case reflect.Map:
		b.WriteString("(")
		if err := describe(b, t.Key(), seen); err != nil {
			return err
		}
		b.WriteString("=>")
		defer b.WriteString(")")
		return describe(b, t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return nil // named above; its fields were described the first time
		}
		seen[t] = true
		b.WriteString("{")
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("field %s of %s is unexported", f.Name, t)
			}
			for _, key := range []string{"cbor", "json"} {
				if tag, ok := f.Tag.Lookup(key); ok && (tag == "-" || strings.Contains(tag, ",omit")) {
					return fmt.Errorf("field %s of %s: tag %s:%q leaves values out", f.Name, t, key, tag)
				}
			}
			fmt.Fprintf(b, "%s %q ", f.Name, f.Tag)
			if err := describe(b, f.Type, seen); err != nil {
				return err
			}
			b.WriteString(";")
		}
		b.WriteString("}")
		return nil
	default: // interfaces, channels, functions
		return fmt.Errorf("%s is a %s", t, t.Kind())
	}
}
