package yarn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Hadoop's REST views are rendered by Jersey 1, whose JSON depends on each
// type's JAXB configuration and on the release: a list of one element may
// be an object instead of an array (a real 3.3.6 RM does this for an app's
// containers, get-node-to-labels and get-node-labels, and a list of strings
// may even be one bare string), a list of none may be `{}`, null or a
// missing key, and numbers may be strings (the containers list sends
// "allocatedMB":"512"). The client decodes every list of every view with
// jerseyList and every number Hadoop is seen to quote with jerseyInt, so no
// endpoint needs its own rule.

// jerseyList is a JSON list in Jersey's encoding: an array, a single
// element (object or scalar) for one, and `{}`, null or a missing key for
// none.
type jerseyList[T any] []T

func (l *jerseyList[T]) UnmarshalJSON(b []byte) error {
	s := bytes.TrimSpace(b)
	switch {
	case len(s) == 0 || bytes.Equal(s, []byte("null")):
		*l = nil
		return nil
	case s[0] == '[':
		var v []T
		if err := json.Unmarshal(s, &v); err != nil {
			return err
		}
		*l = v
		return nil
	case isEmptyObject(s):
		*l = nil
		return nil
	}
	var one T
	if err := json.Unmarshal(s, &one); err != nil {
		return err
	}
	*l = jerseyList[T]{one}
	return nil
}

// UnmarshalJSONFrom is UnmarshalJSON from a stream (stream.go): an array
// is decoded in place, without first reading it whole and scanning it
// again.
func (l *jerseyList[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var list jerseyList[T]
	if dec.PeekKind() == '[' {
		var v []T
		if err := decodeValue(dec, &v); err != nil {
			return err
		}
		*l = v
		return nil
	}
	err := decodeJerseyList(dec, func(v *T) error { list = append(list, *v); return nil })
	*l = list
	return err
}

func isEmptyObject(s []byte) bool {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return false
	}
	return len(bytes.TrimSpace(s[1:len(s)-1])) == 0
}

// jerseyInt is an integer sent as a JSON number or as a string of one
// ("512"); an empty string is 0.
type jerseyInt int64

// UnmarshalJSONFrom reads the value in place from a stream (stream.go).
func (n *jerseyInt) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return atField(dec, n.UnmarshalJSON(b))
}

func (n *jerseyInt) UnmarshalJSON(b []byte) error {
	lit, ok := numberLiteral(b)
	if !ok {
		return notA("an integer", b, int64(0))
	}
	if len(lit) == 0 {
		*n = 0
		return nil
	}
	if v, ok := parseDecimal(lit); ok { // the common case, without allocating
		*n = jerseyInt(v)
		return nil
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		// A float where an integer was expected (e.g. 512.0): keep the
		// whole part rather than failing the view.
		f, ferr := strconv.ParseFloat(string(lit), 64)
		if ferr != nil {
			return notA("an integer", b, int64(0))
		}
		v = int64(f)
	}
	*n = jerseyInt(v)
	return nil
}

// jerseyFloat is a number sent as a JSON number or as a string of one.
type jerseyFloat float64

// UnmarshalJSONFrom reads the value in place from a stream (stream.go).
func (f *jerseyFloat) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return atField(dec, f.UnmarshalJSON(b))
}

func (f *jerseyFloat) UnmarshalJSON(b []byte) error {
	lit, ok := numberLiteral(b)
	if !ok {
		return notA("a number", b, float64(0))
	}
	if len(lit) == 0 {
		*f = 0
		return nil
	}
	if v, ok := parseDecimal(lit); ok {
		*f = jerseyFloat(v)
		return nil
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return notA("a number", b, float64(0))
	}
	*f = jerseyFloat(v)
	return nil
}

// numberLiteral strips a JSON literal to the number's text: the quotes of
// a string ("512" → 512), nothing for null or "". ok is false for
// anything else that is no number candidate (objects, arrays, booleans,
// escaped strings).
func numberLiteral(b []byte) ([]byte, bool) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil, true
	case b[0] == '"':
		if len(b) < 2 || b[len(b)-1] != '"' || bytes.IndexByte(b, '\\') >= 0 {
			return nil, false
		}
		return bytes.TrimSpace(b[1 : len(b)-1]), true
	case b[0] == '-' || b[0] >= '0' && b[0] <= '9':
		return b, true
	}
	return nil, false
}

// parseDecimal parses an optionally negative integer of up to 18 digits.
func parseDecimal(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// jerseyBool is a boolean sent as true/false or as "true"/"false".
type jerseyBool bool

// UnmarshalJSONFrom reads the value in place from a stream (stream.go).
func (v *jerseyBool) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return atField(dec, v.UnmarshalJSON(b))
}

func (v *jerseyBool) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	switch strings.ToLower(s) {
	case "true":
		*v = true
	case "false", "", "null":
		*v = false
	default:
		return notA("a boolean", b, false)
	}
	return nil
}

// notA is a decode error the JSON decoder completes with the field's name
// (it adds the context to *json.UnmarshalTypeError only).
func notA(what string, b []byte, v any) error {
	return &json.UnmarshalTypeError{Value: fmt.Sprintf("%s (not %s)", b, what), Type: reflect.TypeOf(v)}
}
