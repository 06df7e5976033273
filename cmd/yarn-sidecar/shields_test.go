package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestShieldsLiftCLI (issue 37): a daemon set disable_preemption=true on
// root.sort over the admin's "false" and crashed (the audit log records the
// write, YARN still holds it). `shields lift` without --apply says what it
// would restore and writes nothing; with --apply it restores the admin's
// "false" through the one writer and records it in the audit log; a
// second run finds nothing left.
func TestShieldsLiftCLI(t *testing.T) {
	cfg, url := statusCluster(t)
	const key = "yarn.scheduler.capacity.root.sort.disable_preemption"
	c, err := yarn.New(yarn.Config{RMAddresses: []string{url}, User: "yarn-sidecar"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	set := func(v string) (from, to int64) {
		before, err := c.SchedulerConf(ctx)
		if err != nil {
			t.Fatal(err)
		}
		from = confVersion(t, url)
		after := before.Clone()
		after[key] = v
		if err := c.UpdateConf(ctx, schedconf.Diff(before, after)); err != nil {
			t.Fatal(err)
		}
		return from, confVersion(t, url)
	}
	set("false") // the admin's
	from, to := set("true")
	auditPath := auditPathOf(t, cfg)
	log, err := act.OpenAuditLog(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Append(act.AuditEntry{Cycle: 3, Mode: act.ModeApply, VersionBefore: from, VersionAfter: to,
		Before: map[string]string{key: "false"}, After: map[string]string{key: "true"}, Result: act.ResultApplied}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	live := func() string {
		conf, err := c.SchedulerConf(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return conf[key]
	}

	out := runStatusCLI(t, "shields", "lift", "--config", cfg, "--log-level", "error")
	if !strings.Contains(out, "root.sort: disable_preemption true -> false (would restore the admin's value") || confVersion(t, url) != to || live() != "true" {
		t.Fatalf("dry run: want the restore described and nothing written (version %d, want %d; live %q):\n%s", confVersion(t, url), to, live(), out)
	}
	js := runStatusCLI(t, "shields", "lift", "--config", cfg, "--apply", "-o", "json", "--log-level", "error")
	var doc struct {
		Applied bool             `json:"applied"`
		Lifted  []sidecar.Shield `json:"lifted"`
		Result  act.Result       `json:"result"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	if !doc.Applied || len(doc.Lifted) != 1 || doc.Result != act.ResultApplied || live() != "false" {
		t.Fatalf("--apply: want root.sort back to the admin's false, got live %q, %s", live(), js)
	}
	b, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := act.ReadAudit(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if e := entries[len(entries)-1]; e.Result != act.ResultApplied || e.Before[key] != "true" || e.After[key] != "false" {
		t.Fatalf("audit: want the restore recorded, got %+v", e)
	}
	if out := runStatusCLI(t, "shields", "lift", "--config", cfg, "--log-level", "error"); !strings.Contains(out, "no preemption shield of this sidecar") {
		t.Fatalf("after the lift: want nothing left, got:\n%s", out)
	}
}

func auditPathOf(t *testing.T, cfg string) string {
	t.Helper()
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "audit_log: "); ok {
			return p
		}
	}
	t.Fatal("no audit_log in the config")
	return ""
}

// TestDaemonStopLiftsShields (issue 37): the daemon holds a shield it set
// (re-learnt from the audit log at start) and is stopped (its context
// ends, as SIGTERM ends it): before it exits it restores the admin's value
// through the applier, and the audit log records the lift.
func TestDaemonStopLiftsShields(t *testing.T) {
	cfg, url := statusCluster(t)
	const key = "yarn.scheduler.capacity.root.sort.disable_preemption"
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
	auditPath := auditPathOf(t, cfg)
	log, err := act.OpenAuditLog(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Append(act.AuditEntry{Cycle: 3, Mode: act.ModeApply, VersionBefore: from, VersionAfter: confVersion(t, url),
		Before: map[string]string{key: ""}, After: map[string]string{key: "true"}, Result: act.ResultApplied}); err != nil {
		t.Fatal(err)
	}
	log.Close()

	stopped, stop := context.WithCancel(ctx)
	stop() // SIGTERM before the first cycle: the loop returns at once
	f := daemonFlags{config: cfg, logLevel: "error", listen: "127.0.0.1:0"}
	var out strings.Builder
	if err := runDaemon(stopped, &f, "", &out); err != nil {
		t.Fatalf("daemon: %v", err)
	}
	conf, err := c.SchedulerConf(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := conf[key]; ok {
		t.Fatalf("after the stop YARN still holds %s=%q", key, v)
	}
	b, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := act.ReadAudit(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if e := entries[len(entries)-1]; e.Result != act.ResultApplied || e.Before[key] != "true" || e.After[key] != "" {
		t.Fatalf("audit: want the lift at stop recorded, got %+v", e)
	}
}
