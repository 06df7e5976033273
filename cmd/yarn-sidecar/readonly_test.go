package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// readCommands are the commands that must write nothing anywhere, with the
// arguments they need (report's file is the one thing it writes, outside
// the directories watched).
func readCommands(out string) [][]string {
	return [][]string{
		{"plan"}, {"deadlines"}, {"status"}, {"observe"}, {"calibrate"}, {"calibrate", "--export", filepath.Join(out, "history.jsonl")},
		{"labels", "plan"}, {"report", "--html", filepath.Join(out, "report.html")},
	}
}

// dirState lists every file under dir with its size and modification
// time, to tell whether anything was created or changed.
func dirState(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			out = append(out, fmt.Sprintf("%s %d %s", strings.TrimPrefix(p, dir), info.Size(), info.ModTime().Format(time.RFC3339Nano)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestReadCommandsWriteNothing: every read-only command, run in an empty
// working directory with an empty state directory, leaves both empty —
// also when it fails — and, once a sidecar has state there, changes none
// of it (no dry-run audit records, no baseline file, no history). The
// config names no store, so the defaults (in the state directory, never
// the working directory) are what is checked.
func TestReadCommandsWriteNothing(t *testing.T) {
	rm := sim.Start(t, "lee-gpu", 2)
	rm.Step(2 * time.Minute) // both jobs running
	state, cwd, out, cfgDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("STATE_DIRECTORY", state)
	t.Chdir(cwd)
	cfg := filepath.Join(cfgDir, "sidecar.yaml")
	if err := os.WriteFile(cfg, []byte("rm: ["+rm.URL+"]\njobhistory: "+rm.URL+"\nuser: yarn-sidecar\nrate: {min_gain_percent: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(cfgDir, "unreachable.yaml")
	if err := os.WriteFile(bad, []byte("rm: [http://127.0.0.1:1]\njobhistory: http://127.0.0.1:1\ntimeout: 1s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(wantErr bool, args ...string) string {
		t.Helper()
		stdout, stderr, err := runCLI(t, ctx, append(args, "-o", "json", "--log-level", "error")...)
		if (err != nil) != wantErr {
			t.Fatalf("yarn-sidecar %s: error %v, want error %v\nstderr: %s", strings.Join(args, " "), err, wantErr, stderr)
		}
		if m := internalWords.FindString(stdout + stderr); m != "" {
			t.Errorf("yarn-sidecar %s says %q to the admin", strings.Join(args, " "), m)
		}
		return stdout
	}
	empty := func(when string) {
		t.Helper()
		for _, d := range []string{state, cwd} {
			if got := dirState(t, d); len(got) != 0 {
				t.Fatalf("%s: %s is not empty: %v", when, d, got)
			}
		}
	}
	for _, args := range readCommands(out) {
		run(false, append(args, "--config", cfg)...)
		empty(strings.Join(args, " "))
		if args[0] != "calibrate" { // calibrate alone never talks to the RM
			run(true, append(args, "--config", bad)...)
			empty(strings.Join(args, " ") + " against an unreachable RM")
		}
	}

	// A sidecar writes its state; read commands then change none of it.
	run(false, "apply", "--apply", "--config", cfg)
	before := dirState(t, state)
	if len(before) < 3 {
		t.Fatalf("apply --apply left %v in the state directory; want the history, the audit log and the baseline", before)
	}
	for _, args := range readCommands(out) {
		run(false, append(args, "--config", cfg)...)
		if got := dirState(t, state); strings.Join(got, "\n") != strings.Join(before, "\n") {
			t.Fatalf("%s changed the state directory:\nbefore %v\nafter  %v", strings.Join(args, " "), before, got)
		}
		if got := dirState(t, cwd); len(got) != 0 {
			t.Fatalf("%s wrote %v in the working directory", strings.Join(args, " "), got)
		}
	}

	// Beside a running daemon (it holds the history's lock) a read
	// command learns in memory instead of failing or waiting.
	h, err := calibrate.Open(filepath.Join(state, "yarn-sidecar.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, args := range [][]string{{"plan"}, {"status"}, {"deadlines"}} {
		run(false, append(args, "--config", cfg)...)
	}
}

// Read-only commands offer no --apply; the commands that may write do.
func TestApplyFlagOnlyWhereItWrites(t *testing.T) {
	root := newRootCmd()
	for _, tc := range []struct {
		path  []string
		apply bool
	}{
		{[]string{"plan"}, false}, {[]string{"deadlines"}, false}, {[]string{"status"}, false}, {[]string{"report"}, false},
		{[]string{"observe"}, false}, {[]string{"calibrate"}, false}, {[]string{"labels", "plan"}, false},
		{[]string{"apply"}, true}, {[]string{"run"}, true}, {[]string{"labels", "apply"}, true},
	} {
		c, _, err := root.Find(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if has := c.Flags().Lookup("apply") != nil; has != tc.apply {
			t.Errorf("%s offers --apply: %v, want %v", c.CommandPath(), has, tc.apply)
		}
	}
}
