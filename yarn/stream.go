package yarn

import (
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Large list answers (apps, nodes: tens of MiB at 10,000 nodes) are read
// element by element from the response stream: each element is decoded
// and converted while the next is still arriving, so neither the body nor
// a slice of raw elements is ever held whole, and each element is scanned
// once. Jersey's encodings are kept: the list may be an array, one bare
// element, `{}` or null.
//
// The stream is read with encoding/json/v2's jsontext (the
// go-json-experiment module, the standard library's v2 API outside the
// jsonv2 experiment): encoding/json's Decoder.Token and its re-validation
// of every value were most of a snapshot's CPU at scale-10k (issue 19).
// Values are decoded with v1 semantics (streamOptions), so every view
// type means what it means to encoding/json: names matched case
// insensitively, duplicate names and invalid UTF-8 allowed, UnmarshalJSON
// methods called.

// streamOptions decode with encoding/json's (v1) semantics, except that
// an error names where in the answer it was (a JSON pointer such as
// /nodes/node/7/usedMemoryMB): v1 would complete only its own
// UnmarshalTypeError with the field, and the jersey types' errors would
// lose it.
var streamOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

// decodeValue decodes the decoder's next value into v with v1 semantics.
func decodeValue(dec *jsontext.Decoder, v any) error {
	return jsonv2.UnmarshalDecode(dec, v, streamOptions)
}

// newStreamDecoder is a decoder over a body with v1's syntax rules
// (duplicate names and invalid UTF-8 allowed).
func newStreamDecoder(r interface{ Read([]byte) (int, error) }) *jsontext.Decoder {
	return jsontext.NewDecoder(r, streamOptions)
}

// decodeListAt walks the objects named by path (e.g. "apps", "app") from
// the decoder's next value and decodes the list there, calling each per
// element. Keys off the path are skipped; a null or missing object on the
// path is an empty list.
func decodeListAt[T any](dec *jsontext.Decoder, path []string, each func(*T) error) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		return nil // null
	case '{':
	default:
		return fmt.Errorf("%s: want an object, got %s", path[0], tok)
	}
	for dec.PeekKind() != '}' {
		kt, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := kt.String()
		switch {
		case key == path[0] && len(path) == 1:
			err = decodeJerseyList(dec, each)
		case key == path[0]:
			err = decodeListAt(dec, path[1:], each)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err = dec.ReadToken() // '}'
	return err
}

// decodeJerseyList decodes the decoder's next value as a jerseyList[T],
// streaming an array's elements.
func decodeJerseyList[T any](dec *jsontext.Decoder, each func(*T) error) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadToken()
		return err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			var v T
			if err := decodeValue(dec, &v); err != nil {
				return err
			}
			if err := each(&v); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken() // ']'
		return err
	case 0:
		_, err := dec.ReadToken() // the syntax or I/O error
		return err
	}
	// One element (an object or a bare scalar), or `{}` for none: rare,
	// and small.
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if isEmptyObject(raw) {
		return nil
	}
	var v T
	if err := jsonv2.Unmarshal(raw, &v, streamOptions); err != nil {
		return err
	}
	return each(&v)
}

// atField names where in the answer a value failed to decode (e.g.
// "/nodes/node/3/usedMemoryMB"): the v2 decoder does not add the field's
// name to an UnmarshalJSON method's error as encoding/json does.
func atField(dec *jsontext.Decoder, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", dec.StackPointer(), err)
}

// bodyDecoder is a whole view decoded from the jsontext stream with v1
// semantics (decodeValue), without a streamed list: the smaller answers
// (scheduler, an app's attempts and containers) read the same fast way as
// the large ones. encoding/json decoding the 400 container listings and
// the scheduler was a third of a snapshot's client CPU at scale-10k.
type bodyDecoder[T any] struct{ v T }

func (b *bodyDecoder[T]) decodeStream(dec *jsontext.Decoder) error {
	var zero T
	b.v = zero // a retry starts over
	return decodeValue(dec, &b.v)
}
