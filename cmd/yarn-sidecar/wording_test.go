package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// internalWords are the project's own bookkeeping (issue numbers, the
// paper digests' section marks): they mean nothing to an admin and must not
// reach what an admin reads.
var internalWords = regexp.MustCompile(`(?i)\bissue \d+|\bdigest\b`)

// TestNoInternalWordsInWhatAnAdminReads: every command's help and flag
// texts, the example config's comments and the scenarios' descriptions (the
// demo prints them) are free of issue numbers and digest references.
func TestNoInternalWordsInWhatAnAdminReads(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range []string{c.Short, c.Long, c.Example} {
			if m := internalWords.FindString(s); m != "" {
				t.Errorf("%s help says %q", c.CommandPath(), m)
			}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if m := internalWords.FindString(f.Usage); m != "" {
				t.Errorf("%s --%s says %q", c.CommandPath(), f.Name, m)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())

	b, err := os.ReadFile("../../configs/sidecar.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if m := internalWords.FindString(line); m != "" {
			t.Errorf("configs/sidecar.example.yaml:%d says %q", i+1, m)
		}
	}
	for _, name := range sim.Names() {
		sc, err := sim.LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		if m := internalWords.FindString(sc.Description); m != "" {
			t.Errorf("scenario %s's description says %q", name, m)
		}
	}
}
