package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestBaselineFromAnotherDirectory: the sidecar applies from one working
// directory; `status` run from another shows the admin's capacities (what
// the RM held before the sidecar wrote), never the sidecar's own values.
// The store used to be relative to each command's working directory, so
// status from elsewhere found no audit log and took the live values (the
// sidecar's 19.8%) for the admin's.
func TestBaselineFromAnotherDirectory(t *testing.T) {
	rm := sim.Start(t, "lee-gpu", 2)
	rm.Step(2 * time.Minute)
	adminConf, _ := rm.SchedulerConf()
	state, a, b, cfgDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("STATE_DIRECTORY", state)
	cfg := filepath.Join(cfgDir, "sidecar.yaml")
	if err := os.WriteFile(cfg, []byte("rm: ["+rm.URL+"]\njobhistory: "+rm.URL+"\nuser: yarn-sidecar\nrate: {min_gain_percent: 0}\n"+
		// Fresh history: the do-no-harm check (step_harm.go) would cut every move.
		"safety: {harm_margin_percent: -1, idle_window: -1s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t.Chdir(a)
	if _, stderr, err := runCLI(t, ctx, "apply", "--apply", "--config", cfg, "-o", "json", "--log-level", "error"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	live, _ := rm.SchedulerConf()
	changed := map[string]string{} // capacity keys the sidecar changed → admin value
	for k, v := range adminConf {
		if strings.HasSuffix(k, ".capacity") && live[k] != v {
			changed[k] = v
		}
	}
	if len(changed) == 0 {
		t.Fatal("apply --apply changed no capacity: the test needs one the sidecar wrote")
	}

	t.Chdir(b)
	stdout, stderr, err := runCLI(t, ctx, "status", "--config", cfg, "-o", "json", "--log-level", "error")
	if err != nil {
		t.Fatalf("status: %v\n%s", err, stderr)
	}
	doc, err := decodeStatus(stdout)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, q := range doc.Queues {
		for _, p := range q.Partitions {
			part := p.Partition
			key := schedconf.Key(q.Queue, "capacity")
			if part != "" && part != "<default>" && part != "default" {
				key = schedconf.Key(q.Queue, "accessible-node-labels."+part+".capacity")
			}
			want, ok := changed[key]
			if !ok {
				continue
			}
			checked++
			w, _ := strconv.ParseFloat(want, 64)
			if p.AdminCapacity == nil || math.Abs(*p.AdminCapacity-w) > 1e-6 {
				t.Errorf("%s on %s: admin %v, want %s (the RM's value before the sidecar wrote %s)", q.Queue, part, p.AdminCapacity, want, live[key])
			}
		}
	}
	if checked == 0 {
		t.Fatalf("status shows none of the changed capacities %v:\n%s", changed, stdout)
	}
}

// TestBaselineFromAuditWithoutFirstSeenFile: the first-seen file is gone
// but the audit log records the sidecar's writes: the baseline is each
// property's value before the sidecar's first write, not the live value
// (the sidecar's own).
func TestBaselineFromAuditWithoutFirstSeenFile(t *testing.T) {
	dir := t.TempDir()
	cfg, err := sidecar.ParseConfig([]byte("state_dir: " + dir + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.ResolveState(os.Getenv, 1000, ""); err != nil {
		t.Fatal(err)
	}
	const a, b = "yarn.scheduler.capacity.root.a.capacity", "yarn.scheduler.capacity.root.b.capacity"
	log, err := act.OpenAuditLog(cfg.AuditLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []act.AuditEntry{
		{Mode: act.ModeApply, Result: act.ResultApplied, Before: map[string]string{a: "15", b: "85"}, After: map[string]string{a: "17", b: "83"}},
		{Mode: act.ModeApply, Result: act.ResultApplied, Before: map[string]string{a: "17", b: "83"}, After: map[string]string{a: "19.8", b: "80.2"}},
	} {
		if err := log.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	live := schedconf.Conf{"yarn.scheduler.capacity.root.queues": "a,b", a: "19.8", b: "80.2"}
	fs := &sidecar.FirstSeen{Path: cfg.FirstSeenPath(), ReadOnly: true}
	if err := seedBaseline(cfg, fs, staticConf{live}, hclog.NewNullLogger()); err != nil {
		t.Fatal(err)
	}
	tree, err := schedconf.ParseTree(live)
	if err != nil {
		t.Fatal(err)
	}
	seen, err := fs.Observe(tree)
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]float64{"root.a": 15, "root.b": 85} {
		if got := seen[q+"\x00"].Share; got != want {
			t.Errorf("%s baseline = %g%%, want %g%% (before the sidecar's first write)", q, got, want)
		}
	}
	if _, err := os.Stat(cfg.FirstSeenPath()); err == nil {
		t.Error("a read-only baseline was written to disk")
	}
}

type staticConf struct{ c schedconf.Conf }

func (s staticConf) SchedulerConf(context.Context) (schedconf.Conf, error) { return s.c, nil }
func (s staticConf) ConfVersion(context.Context) (int64, error)            { return 1, nil }

func decodeStatus(s string) (report.StatusDoc, error) {
	var doc report.StatusDoc
	err := json.Unmarshal([]byte(s), &doc)
	return doc, err
}

// State left in the working directory by an earlier version (its default
// store was relative) is named in a warning instead of silently ignored.
func TestStrayStateWarned(t *testing.T) {
	state, cwd := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	if err := os.WriteFile(filepath.Join(cwd, "yarn-sidecar-audit.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := sidecar.ParseConfig([]byte("state_dir: " + state + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.ResolveState(os.Getenv, 1000, ""); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	warnStrayState(cfg, hclog.New(&hclog.LoggerOptions{Output: &logs}))
	if !strings.Contains(logs.String(), filepath.Join(cwd, "yarn-sidecar-audit.jsonl")) || strings.Count(logs.String(), "[WARN]") != 1 {
		t.Errorf("want one warning naming the stray audit log, got:\n%s", logs.String())
	}
}
