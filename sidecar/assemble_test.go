package sidecar

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneAssembly: outside tests and assemble.go, nothing builds a
// PSDecider or its preemption guard by hand, so the daemon, the
// experiments, yarnsim compare and the benchmarks all run the decider
// NewDecider builds from the config.
func TestOneAssembly(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	var found []string
	for _, f := range strings.Fields(string(out)) {
		if strings.HasSuffix(f, "_test.go") || f == "sidecar/assemble.go" {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "PSDecider{") || strings.Contains(string(b), "PreemptionGuard{") {
			found = append(found, f)
		}
	}
	if len(found) > 0 {
		t.Errorf("PSDecider or PreemptionGuard built outside sidecar.NewDecider in %v", found)
	}
}
