package testkit

import (
	"bytes"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
)

// Decoders names a service's request types: each builds a fresh value for
// httpx.Decode, as its handler declares it.
type Decoders map[string]func() any

// FuzzDecoders fuzzes the service's JSON request decoding: every body,
// decoded into every request type, is either accepted with text that is
// UTF-8 and unchanged (no U+FFFD the client did not send), or refused with
// the contract's 400 or 422 whose message and hint show no Go internals.
// The committed corpus (testdata/fuzz/<FuzzName>) and the seeds below run
// as a normal test; `make fuzz` runs the fuzzer briefly.
func FuzzDecoders(f *testing.F, types Decoders) {
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, seed := range []string{``, `{}`, `[]`, `null`, `{"a":1}`, `{"x":1e400}`, `{"s":"\ud800"}`,
		"{\"s\":\"\xff\"}", `{"s":"\ud83d\ude00"}`, `{"n":-0.5e-3,"b":true,"o":{"k":[1,"2",null]}}`, `{"a":{"b":{"c":{}}}} x`} {
		for i := range names {
			f.Add([]byte(seed), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		name := names[int(which)%len(names)]
		v := types[name]()
		err := httpx.DecodeBytes(body, v)
		if err != nil {
			pe, ok := problem.As(err)
			if !ok || (pe.Kind != problem.KindInvalid && pe.Kind != problem.KindValidation) {
				t.Fatalf("%s: %q refused with %v, not a 400/422 problem", name, body, err)
			}
			if pe.Hint == "" || pe.Message == "" {
				t.Fatalf("%s: %q refused without message or hint: %+v", name, body, pe)
			}
			for _, leak := range []string{"Go struct", "Go value", "json: ", reflect.TypeOf(v).Elem().Name() + "."} {
				if leak != "." && strings.Contains(pe.Message+pe.Hint, leak) {
					t.Fatalf("%s: %q: the answer shows Go internals (%s): %s / %s", name, body, leak, pe.Message, pe.Hint)
				}
			}
			return
		}
		sentFFFD := bytes.Contains(body, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
		checkText(t, name, body, reflect.ValueOf(v), sentFFFD)
	})
}

// checkText walks a decoded value: every string must be UTF-8 and carry a
// replacement character only when the client sent one.
func checkText(t *testing.T, name string, body []byte, v reflect.Value, sentFFFD bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			checkText(t, name, body, v.Elem(), sentFFFD)
		}
	case reflect.String:
		s := v.String()
		if !utf8.ValidString(s) || (!sentFFFD && strings.ContainsRune(s, utf8.RuneError)) {
			t.Fatalf("%s: %q accepted with text changed or not UTF-8: %q", name, body, s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() || v.Type().Field(i).Anonymous {
				checkText(t, name, body, v.Field(i), sentFFFD)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			checkText(t, name, body, v.Index(i), sentFFFD)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			checkText(t, name, body, k, sentFFFD)
			checkText(t, name, body, v.MapIndex(k), sentFFFD)
		}
	}
}
