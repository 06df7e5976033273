package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// On a leveldb configuration store a real RM fails every
// POST /scheduler-conf/validate (the validator opens the store a second
// time); the mini cluster's conf_store: leveldb does the same. The sidecar
// must still act — local validation and the PUT, which the RM validates
// atomically — and say so in every audit record (issue 14, item 2).
func TestSteersALevelDBClusterWithLocalValidation(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "sim", "scenarios", "lee-gpu.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "lee-gpu-leveldb.yaml")
	if err := os.WriteFile(path, append(data, []byte("\nconf_store: leveldb\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if sc, err := sim.LoadScenario(path); err != nil || sc.ConfStore != "leveldb" {
		t.Fatalf("scenario: %v (store %q)", err, sc.ConfStore)
	}
	res, err := RunSidecar(path, 1, SidecarOptions{WarmupSeed: 101, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied == 0 {
		t.Fatalf("no plan applied in %d cycles on a leveldb store", res.Cycles)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "audit-*.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("audit logs %v", matches)
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	entries, err := act.ReadAudit(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	applied := 0
	for _, e := range entries {
		if e.Result == act.ResultRejected && strings.Contains(e.Error, "rm-validate") {
			t.Errorf("cycle %d rejected at RM validation: %s", e.Cycle, e.Error)
		}
		if e.Result != act.ResultApplied {
			continue
		}
		applied++
		if e.Validation != act.ValidationLocalOnly || !strings.Contains(e.ValidationReason, "leveldb") {
			t.Errorf("cycle %d applied with validation %q (%q), want local-only naming leveldb", e.Cycle, e.Validation, e.ValidationReason)
		}
	}
	if applied != res.Applied {
		t.Errorf("%d applied audit records, %d applied plans", applied, res.Applied)
	}
}
