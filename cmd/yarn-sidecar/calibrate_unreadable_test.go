package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// calibrate --backfill over a JobHistory that cannot load one job (500, as
// recorded in jhs-unloadable/) exits 0, learns every other job and names
// the bad one; a plain `calibrate` afterwards still lists it (the record is
// in the store).
func TestBackfillReportsUnloadableJob(t *testing.T) {
	rm := sim.Start(t, "testdata/jhs-unloadable.yaml", 1)
	if !rm.RunUntilDone(time.Hour) {
		t.Fatal("jobs did not finish")
	}
	var victim string
	for _, a := range rm.Apps() {
		if a.Name == "victim" {
			victim = a.ID
		}
	}
	if err := rm.DamageHistory(victim); err != nil {
		t.Fatal(err)
	}
	victimJob := "job" + strings.TrimPrefix(victim, "application")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sidecar.yaml")
	conf := "rm: [" + rm.URL + "]\njobhistory: " + rm.URL + "\nuser: yarn-sidecar\ninterval: 1s\n" +
		"store: " + filepath.Join(dir, "history.db") + "\naudit_log: " + filepath.Join(dir, "audit.jsonl") + "\nlisten: 127.0.0.1:0\n" +
		"calibration:\n  min_samples: 1\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stdout, stderr, err := runCLI(t, ctx, "calibrate", "--backfill", "--since", "7d", "--config", cfg, "--log-level", "error")
	if err != nil {
		t.Fatalf("backfill with one unloadable job: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "3 jobs") && !strings.Contains(stderr, "3 jobs") {
		t.Errorf("want the 3 loadable jobs read:\nstdout %s\nstderr %s", stdout, stderr)
	}
	for _, class := range []string{"crypto", "sort"} {
		if !strings.Contains(stdout, "\n"+class+" ") {
			t.Errorf("no rates of %s learned:\n%s", class, stdout)
		}
	}
	if !strings.Contains(stdout, "1 finished jobs JobHistory could not serve") || !strings.Contains(stdout, victimJob) ||
		!strings.Contains(stdout, "tried 1 times, next try at") {
		t.Errorf("the unloadable job %s is not reported:\n%s", victimJob, stdout)
	}
	stdout, stderr, err = runCLI(t, ctx, "calibrate", "--config", cfg, "--log-level", "error")
	if err != nil || !strings.Contains(stdout, victimJob) {
		t.Errorf("plain calibrate after the backfill: %v, want %s listed:\n%s%s", err, victimJob, stdout, stderr)
	}
}
