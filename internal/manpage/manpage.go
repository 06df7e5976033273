// Package manpage gives a cobra command line a hidden `man --dir DIR`
// subcommand writing the man pages (section 1) of every command, which
// `make dist` (scripts/dist.sh) packages. cobra/doc writes them.
package manpage

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Command is the hidden `man` subcommand for a program called name.
func Command(name string) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "man --dir DIR",
		Short:  "Write the man pages of " + name + " and its subcommands to DIR",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return Write(cmd.Root(), dir, name)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the pages to (created)")
	_ = cmd.MarkFlagRequired("dir")
	return cmd
}

// Write writes root's pages and its subcommands' into dir. The header's
// date is SOURCE_DATE_EPOCH's when set (scripts/dist.sh sets the commit's),
// so two builds of one commit give the same pages; cobra/doc reads it.
func Write(root *cobra.Command, dir, source string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	root.DisableAutoGenTag = true
	hdr := &doc.GenManHeader{Section: "1", Source: source, Manual: source + " manual"}
	if err := doc.GenManTree(root, hdr, dir); err != nil {
		return fmt.Errorf("write man pages to %s: %w", dir, err)
	}
	return nil
}
