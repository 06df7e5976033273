package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// outputFlag adds the -o table|json flag every read command takes.
func outputFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVarP(dst, "output", "o", "table", "output format: table or json")
}

// checkOutput rejects an unknown -o value with a message naming it.
func checkOutput(o string) error {
	if o != "table" && o != "json" {
		return fmt.Errorf("unknown output format %q: want table or json", o)
	}
	return nil
}

// writeJSON prints v as indented JSON, the stable machine-readable form.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// newTable returns a tab-aligned writer for table output; call Flush.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}
