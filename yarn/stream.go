package yarn

import (
	"encoding/json"
	"fmt"
)

// Large list answers (apps, nodes: tens of MiB at 10,000 nodes) are read
// element by element from the response stream: each element is decoded
// and converted while the next is still arriving, so neither the body nor
// a slice of raw elements is ever held whole, and each element is scanned
// once (a jerseyList field re-scans its whole array — issue 19 measured
// ~2× the CPU of a plain slice). Jersey's encodings are kept: the list may
// be an array, one bare element, `{}` or null.

// decodeListAt walks the objects named by path (e.g. "apps", "app") from
// the decoder's next value and decodes the list there, calling each per
// element. Keys off the path are skipped; a null or missing object on the
// path is an empty list.
func decodeListAt[T any](dec *json.Decoder, path []string, each func(*T) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil // null
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("%s: want an object, got %v", path[0], tok)
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		switch {
		case key == path[0] && len(path) == 1:
			err = decodeJerseyList(dec, each)
		case key == path[0]:
			err = decodeListAt(dec, path[1:], each)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return err
		}
	}
	_, err = dec.Token() // '}'
	return err
}

// decodeJerseyList decodes the decoder's next value as a jerseyList[T],
// streaming an array's elements.
func decodeJerseyList[T any](dec *json.Decoder, each func(*T) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch d := tok.(type) {
	case nil:
		return nil
	case json.Delim:
		if d == '[' {
			for dec.More() {
				var v T
				if err := dec.Decode(&v); err != nil {
					return err
				}
				if err := each(&v); err != nil {
					return err
				}
			}
			_, err := dec.Token() // ']'
			return err
		}
		// One element as an object (or `{}` for none): gather its members
		// back into an object and decode that; rare, and small.
		obj := []byte{'{'}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			k, _ := json.Marshal(kt)
			if len(obj) > 1 {
				obj = append(obj, ',')
			}
			obj = append(append(append(obj, k...), ':'), raw...)
		}
		if _, err := dec.Token(); err != nil { // '}'
			return err
		}
		if len(obj) == 1 {
			return nil // {}
		}
		var v T
		if err := json.Unmarshal(append(obj, '}'), &v); err != nil {
			return err
		}
		return each(&v)
	default: // one bare scalar
		b, _ := json.Marshal(d)
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		return each(&v)
	}
}
