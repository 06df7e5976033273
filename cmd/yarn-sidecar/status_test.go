package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// runStatusCLI runs the root command with args and returns its stdout.
func runStatusCLI(t *testing.T, args ...string) string {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(io.Discard)
	root.SetArgs(args)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("yarn-sidecar %s: %v", strings.Join(args, " "), err)
	}
	return out.String()
}

// statusCluster starts lee-gpu with both jobs running and writes a config
// whose audit log says the admin had given crypto 40% of gpu before an
// earlier run of the sidecar changed it (the live conf says 50).
func statusCluster(t *testing.T) (cfg, url string) {
	rm := sim.Start(t, "lee-gpu", 2)
	rm.Step(2 * time.Minute)
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.jsonl")
	log, err := act.OpenAuditLog(audit)
	if err != nil {
		t.Fatal(err)
	}
	key := "yarn.scheduler.capacity.root.crypto.accessible-node-labels.gpu.capacity"
	for _, e := range []act.AuditEntry{
		{Cycle: 1, Result: act.ResultApplied, Before: map[string]string{key: "40"}, After: map[string]string{key: "45"}},
		{Cycle: 2, Result: act.ResultApplied, Before: map[string]string{key: "45"}, After: map[string]string{key: "50"}},
	} {
		if err := log.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	cfg = filepath.Join(dir, "sidecar.yaml")
	conf := "mode: apply\nrm: [" + rm.URL + "]\njobhistory: " + rm.URL + "\nuser: yarn-sidecar\n" +
		"store: " + filepath.Join(dir, "history.db") + "\naudit_log: " + audit + "\n" +
		// Fresh history: no rate is measured, so the do-no-harm check
		// cuts every move back to the admin's; the table needs a plan.
		"safety: {harm_margin_percent: -1, idle_window: -1s}\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, rm.URL
}

func confVersion(t *testing.T, url string) int64 {
	c, err := yarn.New(yarn.Config{RMAddresses: []string{url}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.ConfVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStatusJSON: exactly one JSON document, the configured mode, the RM's
// version, the admin's guarantee from the audit log, and nothing written.
func TestStatusJSON(t *testing.T) {
	cfg, url := statusCluster(t)
	before := confVersion(t, url)
	out := runStatusCLI(t, "status", "--config", cfg, "-o", "json", "--log-level", "error")
	if after := confVersion(t, url); after != before {
		t.Errorf("status changed the scheduler configuration: version %d → %d", before, after)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	var doc report.StatusDoc
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("status -o json is not JSON: %v\n%s", err, out)
	}
	if err := dec.Decode(new(any)); !errors.Is(err, io.EOF) {
		t.Fatalf("status -o json printed more than one document (%v):\n%s", err, out)
	}
	h := doc.Header
	if h.Mode != act.ModeApply || h.RMVersion != "3.4.1" || h.Cycle != 1 || h.RunningJobs != 2 || h.SumPS == nil {
		t.Errorf("header = %+v, want mode apply (as configured), RM 3.4.1, cycle 1, 2 jobs with ΣPS", h)
	}
	if len(doc.Queues) != 2 || doc.Queues[0].Queue != "root.crypto" {
		t.Fatalf("queues = %+v, want root.crypto and root.sort", doc.Queues)
	}
	var gpu *report.PartitionRow
	for i, p := range doc.Queues[0].Partitions {
		if p.Partition == "gpu" {
			gpu = &doc.Queues[0].Partitions[i]
		}
	}
	if gpu == nil || gpu.AdminCapacity == nil || *gpu.AdminCapacity != 40 || gpu.Capacity != 50 {
		t.Errorf("crypto on gpu = %+v, want admin 40 (the audit log's first before) → now 50", gpu)
	}
	if doc.Queues[0].Jobs != 1 || doc.Queues[0].FairPS <= 0 {
		t.Errorf("crypto row = %+v, want its one job and a fair share", doc.Queues[0])
	}
	if _, err := decodeOne(out); err != nil { // the project's strict check: one document, no null
		t.Error(err)
	}
}

// An empty status (nothing observed) is still one document with [].
func TestStatusJSONEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteStatusJSON(&buf, sidecar.Status{}); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeOne(buf.String()); err != nil {
		t.Error(err)
	}
	for _, want := range []string{`"queues": []`, `"warnings": []`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("empty status lacks %s:\n%s", want, buf.String())
		}
	}
}

// TestStatusTable: the header lines and one row per queue and partition.
func TestStatusTable(t *testing.T) {
	cfg, _ := statusCluster(t)
	out := runStatusCLI(t, "status", "--config", cfg, "--log-level", "error")
	t.Logf("status:\n%s", out)
	for _, want := range []string{
		"cycle 1 at ", "mode apply", "preemption off" /* the mini RM reports preemptionDisabled; the guard reads it */, "(Hadoop 3.4.1)", "validation rm",
		"2 jobs running, ", " containers · ΣPS ",
		"QUEUE", "GUARANTEE (ADMIN → NOW)", "PS / FAIR",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status table lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(out, "\n")
	var crypto, gpu string
	for i, l := range lines {
		if strings.HasPrefix(l, "root.crypto ") {
			crypto, gpu = l, lines[i+1]
		}
	}
	if f := strings.Fields(crypto); len(f) < 9 || f[1] != "default" || f[2] != "50%" || f[4] != "50%" || f[6] != "1" {
		t.Errorf("crypto's first row = %q, want default 50%% → 50%%, 1 job", crypto)
	}
	if f := strings.Fields(gpu); len(f) != 5 || f[0] != "gpu" || f[1] != "40%" || f[3] != "50%" {
		t.Errorf("crypto's gpu row = %q, want gpu 40%% → 50%% and no repeated job columns", gpu)
	}
}

// TestStatusFromDaemon reads a daemon's /status instead of observing.
func TestStatusFromDaemon(t *testing.T) {
	board := &sidecar.StatusBoard{}
	now := time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)
	board.Update(func(st *sidecar.Status) {
		st.Time, st.Cycle, st.Mode, st.LastRunning = now, 385, act.ModeDryRun, now.Add(-5*time.Minute)
		st.Queues = []sidecar.QueueStatus{{Queue: "root.etl", Capacity: 40, AbsCapacity: 40, AbsUsed: 3}}
	})
	srv := httptest.NewServer(serveStatus(board))
	defer srv.Close()
	out := runStatusCLI(t, "status", "--from", srv.URL)
	for _, want := range []string{"cycle 385 at 2026-01-01 03:00:00Z", "mode dry-run", "no jobs running (last at 02:55:00Z)", "root.etl", "idle"} {
		if !strings.Contains(out, want) {
			t.Errorf("status --from lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ΣPS") {
		t.Errorf("status of an idle cluster prints a ΣPS:\n%s", out)
	}
}

// TestStatusListsRecoveredShield: an earlier run set disable_preemption on
// root.crypto (audit log + live conf); a new process re-learns it from the
// audit log at start and `status` lists it, in the table and in JSON.
func TestStatusListsRecoveredShield(t *testing.T) {
	cfg, url := statusCluster(t)
	const key = "yarn.scheduler.capacity.root.crypto.disable_preemption"
	c, err := yarn.New(yarn.Config{RMAddresses: []string{url}, User: "yarn-sidecar"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	before, err := c.SchedulerConf(ctx)
	if err != nil {
		t.Fatal(err)
	}
	from := confVersion(t, url)
	after := before.Clone()
	after[key] = "true"
	if err := c.UpdateConf(ctx, schedconf.Diff(before, after)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var auditPath string
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "audit_log: "); ok {
			auditPath = p
		}
	}
	log, err := act.OpenAuditLog(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Append(act.AuditEntry{Cycle: 3, Mode: act.ModeApply, VersionBefore: from, VersionAfter: confVersion(t, url),
		Before: map[string]string{key: ""}, After: map[string]string{key: "true"}, Result: act.ResultApplied}); err != nil {
		t.Fatal(err)
	}
	log.Close()

	out := runStatusCLI(t, "status", "--config", cfg, "--log-level", "error")
	if !strings.Contains(out, "preemption shield: the sidecar set disable_preemption=true on 1 queue(s): root.crypto (held ") {
		t.Errorf("status does not list the recovered shield:\n%s", out)
	}
	var doc struct {
		Header struct {
			Shielded []string `json:"shieldedQueues"`
		} `json:"header"`
	}
	js := runStatusCLI(t, "status", "--config", cfg, "-o", "json", "--log-level", "error")
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Header.Shielded) != 1 || doc.Header.Shielded[0] != "root.crypto" {
		t.Errorf("status JSON shieldedQueues = %v, want [root.crypto]", doc.Header.Shielded)
	}
}
