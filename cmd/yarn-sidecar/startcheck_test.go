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

// TestMisspelledQueueRefused: a pinned queue spelled wrong used to be
// accepted with exit 0 and the plan then changed the queue it meant to
// protect; --queue root.nosuch printed an empty table. Both now stop with
// the name and the nearest existing one, on the daemon and on every read
// command that loads the config; expected_later lets a queue about to be
// created through.
func TestMisspelledQueueRefused(t *testing.T) {
	rm := sim.Start(t, "lee-gpu", 2)
	rm.Step(2 * time.Minute)
	dir := t.TempDir()
	t.Setenv("STATE_DIRECTORY", dir)
	write := func(name, extra string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("rm: ["+rm.URL+"]\njobhistory: "+rm.URL+"\nuser: yarn-sidecar\ninterval: 1s\nlisten: 127.0.0.1:0\n"+extra), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	typo := write("typo.yaml", "queues: {root.sortt: {pinned: true}}\nnode_types: [{name: fast, label: gpus}]\n")
	later := write("later.yaml", "queues: {root.sort: {pinned: true}, root.ml: {weight: 2, expected_later: true}}\nnode_types: [{name: fast, label: gpu}]\n")
	ctx := context.Background()
	for _, args := range [][]string{{"run"}, {"apply"}, {"plan"}, {"deadlines"}, {"status"}, {"report", "--html", filepath.Join(dir, "r.html")}, {"observe"}, {"labels", "plan"}} {
		name := strings.Join(args, " ")
		// run would run until stopped if it accepted the config.
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, _, err := runCLI(t, rctx, append(args, "--config", typo, "--log-level", "error")...)
		cancel()
		if err == nil {
			t.Errorf("%s accepted queues: root.sortt", name)
			continue
		}
		for _, want := range []string{"queues.root.sortt: no such queue; did you mean root.sort?", `label: no such node label "gpus"; did you mean gpu?`, typo} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", name, err, want)
			}
		}
		if args[0] == "run" {
			continue // would run until stopped
		}
		if _, stderr, err := runCLI(t, ctx, append(args, "--config", later, "--log-level", "error")...); err != nil {
			t.Errorf("%s with expected_later: %v\n%s", name, err, stderr)
		}
	}
	_, _, err := runCLI(t, ctx, "deadlines", "--queue", "root.nosuch", "--config", later, "--log-level", "error")
	if err == nil || !strings.Contains(err.Error(), "--queue root.nosuch: no such queue") {
		t.Errorf("deadlines --queue root.nosuch = %v, want an error naming it", err)
	}
	_, _, err = runCLI(t, ctx, "deadlines", "--queue", "root.srot", "--config", later, "--log-level", "error")
	if err == nil || !strings.Contains(err.Error(), "did you mean root.sort?") {
		t.Errorf("deadlines --queue root.srot = %v, want the nearest queue", err)
	}
	if _, _, err := runCLI(t, ctx, "deadlines", "--queue", "root.sort", "--config", later, "--log-level", "error"); err != nil {
		t.Errorf("deadlines --queue root.sort: %v", err)
	}
}

// TestCorruptAuditLineDoesNotStopCommands: one line of the audit log that
// is not a record used to make every command retry the start's
// reconciliation 4 times over 6 s and exit. It is now skipped (with a
// warning naming the line) and the log is left as it was.
func TestCorruptAuditLineDoesNotStopCommands(t *testing.T) {
	cfg, _ := statusCluster(t)
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	audit := ""
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "audit_log: "); ok {
			audit = v
		}
	}
	f, err := os.OpenFile(audit, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"time\": this line was edited by hand\n")
	f.Close()
	for _, args := range [][]string{{"status"}, {"plan"}, {"apply"}} {
		before, _ := os.ReadFile(audit)
		if _, stderr, err := runCLI(t, context.Background(), append(args, "--config", cfg, "--log-level", "error", "-o", "json")...); err != nil {
			t.Errorf("%s with a corrupt audit line: %v\n%s", args[0], err, stderr)
		}
		after, _ := os.ReadFile(audit)
		if !strings.HasPrefix(string(after), string(before)) {
			t.Errorf("%s rewrote the audit log instead of appending", args[0])
		}
	}
}
