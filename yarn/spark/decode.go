package spark

import (
	"encoding/json"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// decodeOptions decode with encoding/json's (v1) semantics, as the yarn
// package's stream decode does: names matched case-insensitively,
// UnmarshalJSON methods (Time) called; errors name where they were.
var decodeOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

func decodeValue(dec *jsontext.Decoder, v any) error {
	return jsonv2.UnmarshalDecode(dec, v, decodeOptions)
}

// decodeArray streams the decoder's next value, an array (Spark's Jackson
// always writes lists as arrays), calling each per element; null is an
// empty list.
func decodeArray[T any](dec *jsontext.Decoder, each func(*T) error) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		return nil
	case '[':
	default:
		return fmt.Errorf("want an array, got %s", tok.Kind())
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
	_, err = dec.ReadToken()
	return err
}

// decodeStageAttempt decodes a stage attempt, streaming its tasks map
// (keyed by task id, unsorted) value by value into each and everything
// else into st. The other keys are small; they are gathered into one
// object and decoded at the end.
func decodeStageAttempt(dec *jsontext.Decoder, st *Stage, each func(*Task) error) error {
	*st = Stage{}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return fmt.Errorf("stage attempt: want an object, got %s", tok.Kind())
	}
	rest := []byte{'{'}
	for dec.PeekKind() != '}' {
		kt, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := kt.String()
		if key == "tasks" {
			if err := decodeObjectValues(dec, each); err != nil {
				return fmt.Errorf("tasks: %w", err)
			}
			continue
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		k, _ := json.Marshal(key)
		rest = append(append(append(rest, k...), ':'), raw...)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	rest = append(rest, '}')
	return jsonv2.Unmarshal(rest, st, decodeOptions)
}

// decodeObjectValues streams an object's values (a map keyed by id),
// calling each per value; null is empty.
func decodeObjectValues[T any](dec *jsontext.Decoder, each func(*T) error) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		return nil
	case '{':
	default:
		return fmt.Errorf("want an object, got %s", tok.Kind())
	}
	for dec.PeekKind() != '}' {
		if _, err := dec.ReadToken(); err != nil { // the key (the value carries its id)
			return err
		}
		var v T
		if err := decodeValue(dec, &v); err != nil {
			return err
		}
		if err := each(&v); err != nil {
			return err
		}
	}
	_, err = dec.ReadToken()
	return err
}
