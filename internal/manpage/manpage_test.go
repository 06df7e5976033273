package manpage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestCommandWritesPages(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600") // 2026-01-01
	root := &cobra.Command{Use: "tool", Short: "A tool"}
	root.AddCommand(&cobra.Command{Use: "run", Short: "Run it", Run: func(*cobra.Command, []string) {}}, Command("tool"))
	dir := filepath.Join(t.TempDir(), "man1")
	root.SetArgs([]string{"man", "--dir", dir})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for page, want := range map[string]string{"tool.1": "A tool", "tool-run.1": "Run it"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) || !strings.Contains(string(b), `.TH "TOOL`) || !strings.Contains(string(b), "Jan 2026") {
			t.Errorf("%s:\n%s", page, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tool-man.1")); err == nil {
		t.Error("the hidden man command has a page")
	}
}
