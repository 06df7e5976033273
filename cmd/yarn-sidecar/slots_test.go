package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// On the recorded 3.3.6 cluster's layout (4096 MB nodes, 512 MB maps,
// testdata/real336-goals.yaml), `deadlines` and `labels plan` count the
// containers the cluster runs — 8 per node, read from the jobs' conf —
// where a fixed 2048 MB slot said 2 ("its goals need 6 containers (the
// queue may hold 2)" for a job that met its 2-minute goal; "2 slots" on
// a 4 GB node where 8 containers ran). slot: in the config overrides it.
func TestCommandsCountTheClustersContainers(t *testing.T) {
	rm := sim.Start(t, "testdata/real336-goals.yaml", 1)
	rm.Step(40 * time.Second) // both jobs' maps running
	running := 0
	for _, a := range rm.Apps() {
		if a.State == "RUNNING" && a.RunningContainers > 2 {
			running++
		}
	}
	if running == 0 {
		t.Fatal("no job holds task containers after 40 s")
	}
	dir := t.TempDir()
	write := func(extra string) string {
		cfg := filepath.Join(dir, "sidecar"+extra[:min(len(extra), 1)]+".yaml")
		conf := "rm: [" + rm.URL + "]\njobhistory: " + rm.URL + "\nuser: yarn-sidecar\ninterval: 1s\n" +
			"store: " + filepath.Join(dir, "history"+extra[:min(len(extra), 1)]+".db") + "\naudit_log: " + filepath.Join(dir, "audit.jsonl") + "\nlisten: 127.0.0.1:0\n" + extra
		if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := write("")
	ctx := context.Background()
	run := func(cfg string, args ...string) string {
		t.Helper()
		stdout, stderr, err := runCLI(t, ctx, append(args, "--config", cfg, "--log-level", "error")...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		return stdout
	}

	var queues []struct {
		Queue string `json:"queue"`
		Max   int    `json:"containersMax"`
	}
	if err := json.Unmarshal([]byte(run(cfg, "deadlines", "-o", "json")), &queues); err != nil {
		t.Fatal(err)
	}
	if len(queues) == 0 {
		t.Fatal("deadlines listed no queue with goals")
	}
	for _, q := range queues {
		// Each queue may grow to 100% of its home partition: one 4096 MB node.
		if q.Max != 8 {
			t.Errorf("%s may hold %d containers, want 8 (4096 MB / 512 MB maps)", q.Queue, q.Max)
		}
	}
	if out := run(cfg, "deadlines"); !strings.Contains(out, "slots of 512 MB (memory only: DefaultResourceCalculator) (running-jobs)") {
		t.Errorf("deadlines does not say its slot:\n%s", out)
	}

	if out := run(cfg, "status"); !strings.Contains(out, "planning slot: 512 MB (memory only), from running-jobs") {
		t.Errorf("status does not say its slot:\n%s", out)
	}

	var layout struct {
		Slot      struct{ MemoryMB int64 } `json:"slot"`
		TypeSlots map[string]int64         `json:"slotsByNodeType"`
	}
	if err := json.Unmarshal([]byte(run(cfg, "labels", "plan", "-o", "json")), &layout); err != nil {
		t.Fatal(err)
	}
	if layout.Slot.MemoryMB != 512 || len(layout.TypeSlots) == 0 {
		t.Fatalf("labels plan: slot %d MB, slots by type %v; want 512 MB", layout.Slot.MemoryMB, layout.TypeSlots)
	}
	for typ, n := range layout.TypeSlots {
		if n != 8 {
			t.Errorf("labels plan: node type %s has %d slots, want 8 (one 4096 MB node of 512 MB containers)", typ, n)
		}
	}

	// The admin knows better: slot: wins.
	over := write("slot:\n  memory_mb: 1024\n  vcores: 1\n")
	if err := json.Unmarshal([]byte(run(over, "labels", "plan", "-o", "json")), &layout); err != nil {
		t.Fatal(err)
	}
	for typ, n := range layout.TypeSlots {
		if layout.Slot.MemoryMB != 1024 || n != 4 {
			t.Errorf("with slot.memory_mb 1024: %s has %d slots of %d MB, want 4 of 1024", typ, n, layout.Slot.MemoryMB)
		}
	}
}
