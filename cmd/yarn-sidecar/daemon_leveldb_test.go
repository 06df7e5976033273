package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/internal/testutil"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// brokenValidate answers every POST .../scheduler-conf/validate the way a
// real Hadoop 3.3.6 RM on a leveldb store does (testdata/validate_leveldb.body:
// HTTP 400, the lock error, plain text under a JSON content type) and passes
// everything else to the mini RM. A stand-in for the mini cluster's own
// leveldb scenario option, which another change adds.
type brokenValidate struct {
	next      http.Handler
	body      []byte
	validates atomic.Int64
	puts      atomic.Int64
}

func (b *brokenValidate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/scheduler-conf/validate"):
		b.validates.Add(1)
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(b.body)
		return
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/scheduler-conf"):
		b.puts.Add(1)
	}
	b.next.ServeHTTP(w, r)
}

// TestDaemonAppliesWithValidationBrokenAsOnLeveldb runs `yarn-sidecar run`
// in apply mode against the mini cluster whose validate endpoint fails like
// a leveldb store's: plans are applied, every audit record that got as far
// as validation names the local-only path and why, the daemon says so once,
// and YARN holds what the last applied record says.
func TestDaemonAppliesWithValidationBrokenAsOnLeveldb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "yarn-sidecar")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rm, srv, broken := leveldbRM(t)
	_, versionBefore := rm.SchedulerConf()

	cfg := filepath.Join(dir, "sidecar.yaml")
	audit := filepath.Join(dir, "audit.jsonl")
	conf := "mode: apply\nrm: [" + srv.URL + "]\njobhistory: " + srv.URL + "\nuser: yarn-sidecar\ninterval: 1s\n" +
		"store: " + filepath.Join(dir, "history.db") + "\naudit_log: " + audit + "\nlisten: 127.0.0.1:0\n" +
		// Fresh history: plans predict no ΣPS gain; the test needs them applied.
		"rate: {min_gain_percent: 0}\n" +
		// Nor can they prove a move does no harm (step_harm.go): off.
		"safety: {harm_margin_percent: -1, idle_window: -1s}\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", cfg, "--log-level", "warn")
	var stderr testutil.SyncBuffer
	cmd.Stderr = io.MultiWriter(&stderr, os.Stderr)
	base, exited := startDaemon(t, cmd)

	// Cycles until at least two plans were applied through the broken
	// validate (the second one reuses the verdict). The cluster moves
	// 20 s per daemon cycle, not per poll: on a busy machine the polls
	// outran slow cycles, the workload went past the phase where plans
	// change (at 100 s per cycle only the first plan is applied) and the
	// test failed.
	stepPerCycle := stepper(t, rm, base+"/metrics", 40*time.Second)
	if !testutil.Poll(60*time.Second, 200*time.Millisecond, func() bool {
		cycles := stepPerCycle()
		return cycles >= 4 && len(appliedRecords(t, audit)) >= 2
	}) {
		t.Fatalf("fewer than 2 plans applied in 60 s; audit:\n%s", readFile(t, audit))
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("daemon exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("daemon did not exit within 30 s of SIGTERM")
	}

	records := auditRecords(t, audit)
	applied := 0
	for i, r := range records {
		if r.Result == act.ResultRejected && strings.Contains(r.Error, "rm-validate") {
			t.Errorf("record %d: rejected at rm-validate although the RM could not validate: %s", i, r.Error)
		}
		if r.Result != act.ResultApplied {
			continue
		}
		applied++
		if r.Validation != act.ValidationLocalOnly || !strings.Contains(r.ValidationReason, "leveldb") {
			t.Errorf("applied record %d: validation %q reason %q, want local-only naming the leveldb lock", i, r.Validation, r.ValidationReason)
		}
	}
	if applied < 2 {
		t.Fatalf("%d plans applied", applied)
	}
	if broken.validates.Load() == 0 || broken.puts.Load() < int64(applied) {
		t.Errorf("validate called %d times, PUT %d times, %d applied", broken.validates.Load(), broken.puts.Load(), applied)
	}
	if n := strings.Count(stderr.String(), "RM-side validation is unavailable"); n != 1 {
		t.Errorf("the daemon said %d times that RM-side validation is unavailable, want once", n)
	}

	// YARN's configuration changed as planned: it holds the last applied
	// record's values at its version.
	live, version := rm.SchedulerConf()
	last := records[0]
	for _, r := range records {
		if r.Result == act.ResultApplied {
			last = r
		}
	}
	if version == versionBefore || last.VersionAfter != version {
		t.Errorf("RM version %d (was %d), last applied record says %d", version, versionBefore, last.VersionAfter)
	}
	t.Logf("%d audit records, %d applied; last applied: validation=%s reason=%q", len(records), applied, last.Validation, last.ValidationReason)
	if len(last.After) == 0 {
		t.Fatal("last applied record changed nothing")
	}
	for k, v := range last.After {
		if live[k] != v {
			t.Errorf("RM has %s=%q, the audit log says %q was applied", k, live[k], v)
		}
	}
}

func auditRecords(t *testing.T, path string) []act.AuditEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	es, err := act.ReadAudit(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func appliedRecords(t *testing.T, path string) []act.AuditEntry {
	var out []act.AuditEntry
	for _, r := range auditRecords(t, path) {
		if r.Result == act.ResultApplied {
			out = append(out, r)
		}
	}
	return out
}

func readFile(t *testing.T, path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// One `apply --apply -o json` cycle through the same broken validate: the
// JSON document says the plan was applied and which validation path it took.
func TestApplyCommandReportsLocalOnlyValidation(t *testing.T) {
	rm, srv, broken := leveldbRM(t)
	_, before := rm.SchedulerConf()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sidecar.yaml")
	conf := "rm: [" + srv.URL + "]\njobhistory: " + srv.URL + "\nuser: yarn-sidecar\n" +
		"store: " + filepath.Join(dir, "history.db") + "\naudit_log: " + filepath.Join(dir, "audit.jsonl") + "\n" +
		// Fresh history: the do-no-harm check would cut the plan (step_harm.go).
		"safety: {harm_margin_percent: -1, idle_window: -1s}\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runCLI(t, context.Background(), "apply", "--apply", "--config", cfg, "-o", "json", "--log-level", "error")
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	v, err := decodeOne(stdout)
	if err != nil {
		t.Fatal(err)
	}
	doc := v.(map[string]any)
	if doc["mode"] != "apply" || doc["result"] != "applied" || doc["validation"] != "local-only" ||
		!strings.Contains(fmt.Sprint(doc["validationReason"]), "leveldb") {
		t.Fatalf("apply -o json: mode %v result %v validation %v (%v)", doc["mode"], doc["result"], doc["validation"], doc["validationReason"])
	}
	if _, after := rm.SchedulerConf(); after != before+1 || broken.puts.Load() != 1 {
		t.Errorf("scheduler-conf version %d → %d with %d PUTs, want one applied PUT", before, after, broken.puts.Load())
	}
}

// leveldbRM serves lee-gpu with both jobs running behind a middleware that
// answers every validate with the recorded leveldb lock error.
func leveldbRM(t *testing.T) (*sim.Cluster, *httptest.Server, *brokenValidate) {
	t.Helper()
	body, err := os.ReadFile("testdata/validate_leveldb.body")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.LoadScenario("lee-gpu")
	if err != nil {
		t.Fatal(err)
	}
	rm, err := sim.NewCluster(sc, 2)
	if err != nil {
		t.Fatal(err)
	}
	broken := &brokenValidate{next: rm.Handler(), body: body}
	srv := httptest.NewServer(broken)
	t.Cleanup(srv.Close)
	rm.Step(2 * time.Minute) // both jobs running
	return rm, srv, broken
}
