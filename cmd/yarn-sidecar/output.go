package main

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// outputFlag adds the -o table|json flag every command takes. With json,
// stdout carries exactly one JSON document and nothing else; progress and
// notes go to stderr.
func outputFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVarP(dst, "output", "o", "table", "output format: table or json (one JSON document on stdout; notes on stderr)")
}

// checkOutput rejects an unknown -o value with a message naming it.
func checkOutput(o string) error {
	if o != "table" && o != "json" {
		return fmt.Errorf("unknown output format %q: want table or json", o)
	}
	return nil
}

// noteWriter is where a command's notes go: stdout in table mode (they are
// part of what a person reads), stderr with -o json (stdout is data).
func noteWriter(cmd *cobra.Command, output string) io.Writer {
	if output == "json" {
		return cmd.ErrOrStderr()
	}
	return cmd.OutOrStdout()
}

// writeJSON prints v as indented JSON, the stable machine-readable form:
// one document, empty collections as [] and {} (never null).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(emptyNotNull(v))
}

// emptyNotNull returns a copy of v in which every nil slice or map reachable
// through exported fields, pointers, slices and maps is an empty one, so
// encoding/json writes [] or {} for it instead of null (omitempty fields are
// still omitted: they are empty either way).
func emptyNotNull(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return v
	}
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(deepFill(rv, map[uintptr]bool{}))
	return cp.Interface()
}

// deepFill returns a copy of v with nil slices and maps made empty.
func deepFill(v reflect.Value, seen map[uintptr]bool) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return v
		}
		seen[v.Pointer()] = true
		defer delete(seen, v.Pointer())
		if _, ok := v.Interface().(json.Marshaler); ok {
			return v
		}
		p := reflect.New(v.Elem().Type())
		p.Elem().Set(deepFill(v.Elem(), seen))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(deepFill(v.Elem(), seen))
		return out
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // []byte encodes as a string
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(deepFill(v.Index(i), seen))
		}
		return out
	case reflect.Map:
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			out.SetMapIndex(iter.Key(), deepFill(iter.Value(), seen))
		}
		return out
	case reflect.Struct:
		if _, ok := v.Interface().(json.Marshaler); ok {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields as they are
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				out.Field(i).Set(deepFill(v.Field(i), seen))
			}
		}
		return out
	}
	return v
}

// newTable returns a tab-aligned writer for table output; call Flush.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}
