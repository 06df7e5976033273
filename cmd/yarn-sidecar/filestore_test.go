package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/rmadmin"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// fileStoreConfig writes a sidecar config for a file-store cluster, with
// hadoop_conf_dir where its capacity-scheduler.xml lives (the RM host).
func fileStoreConfig(t *testing.T, c *sim.FileStoreCluster, mode string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sidecar.yaml")
	conf := "mode: " + mode + "\nrm: [" + c.URL + "]\njobhistory: " + c.URL + "\nuser: yarn-sidecar\n" +
		"store: " + filepath.Join(dir, "history.db") + "\naudit_log: " + filepath.Join(dir, "audit.jsonl") + "\n" +
		"hadoop_conf_dir: " + filepath.Dir(c.ConfFile) + "\n" +
		// Fresh history: no rate is measured, so the do-no-harm check
		// (step_harm.go) would cut every move; these tests need a plan.
		"safety: {harm_margin_percent: -1, idle_window: -1s}\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Issue 34: on a file-store RM, `plan` reads capacity-scheduler.xml and
// says so; `plan -o diff` is a unified diff that patch(1) applies to the
// live file; after `yarn rmadmin -refreshQueues` (the admin protocol) the
// RM shows the planned capacities.
func TestPlanDiffPatchRefresh(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 2)
	c.Step(3 * time.Minute)
	cfg := fileStoreConfig(t, c, "dry-run")

	var plan planJSON
	if err := json.Unmarshal([]byte(runStatusCLI(t, "plan", "--config", cfg, "-o", "json")), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Plan == nil || len(plan.Plan.Changes) == 0 {
		t.Fatalf("no planned change on lee-gpu with both jobs running: %+v", plan)
	}
	if want := "file:" + c.ConfFile; plan.Plan.ConfSource != want {
		t.Errorf("plan source %q, want %q", plan.Plan.ConfSource, want)
	}
	if plan.Result != "dry-run" || plan.Validation != "local-only" {
		t.Errorf("result %s validation %s, want dry-run local-only", plan.Result, plan.Validation)
	}
	table := runStatusCLI(t, "plan", "--config", cfg)
	if !strings.Contains(table, "from file:"+c.ConfFile+" (file store") {
		t.Errorf("the table does not name the file it planned from:\n%s", table)
	}

	diff := runStatusCLI(t, "plan", "--config", cfg, "-o", "diff")
	if !strings.HasPrefix(diff, "--- a/capacity-scheduler.xml\n+++ b/capacity-scheduler.xml\n") {
		t.Fatalf("not a unified diff:\n%s", diff)
	}
	before, _ := os.ReadFile(c.ConfFile)
	xmlOut := runStatusCLI(t, "plan", "--config", cfg, "-o", "xml")
	if after, _ := os.ReadFile(c.ConfFile); string(after) != string(before) {
		t.Fatal("plan wrote the live file")
	}
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch(1) is not installed: the diff is not applied")
	}
	cmd := exec.Command(patch, "-p1", "--no-backup-if-mismatch")
	cmd.Dir, cmd.Stdin = filepath.Dir(c.ConfFile), strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, diff)
	}
	if patched, _ := os.ReadFile(c.ConfFile); string(patched) != xmlOut {
		t.Fatalf("the patched file is not plan -o xml's:\n%s", patched)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rmadmin.RefreshQueues(ctx, c.AdminAddr, "root", nil); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	client, err := yarn.New(yarn.Config{RMAddresses: []string{c.URL}})
	if err != nil {
		t.Fatal(err)
	}
	live, err := client.ConfFromScheduler(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range plan.Plan.Changes {
		if ch.Queue == "" || !strings.Contains(ch.Property, "capacity") {
			continue
		}
		got, want := live[schedconf.Key(ch.Queue, ch.Property)], ch.To
		if gf, err1 := strconv.ParseFloat(got, 64); err1 == nil {
			if wf, err2 := strconv.ParseFloat(want, 64); err2 == nil && gf == wf {
				continue
			}
		}
		if got != want {
			t.Errorf("after the refresh the RM shows %s %s = %q, planned %q", ch.Queue, ch.Property, got, want)
		}
	}
}

// Issue 34: every read command works on a file-store RM and shows what the
// same command shows on the fs store of the same cluster (same scenario,
// seed and time): the running jobs, the deadlines, the plan.
func TestReadCommandsOnTheFileStore(t *testing.T) {
	file := sim.StartFileStore(t, "lee-gpu", 2)
	file.Step(3 * time.Minute)
	fileCfg := fileStoreConfig(t, file, "dry-run")
	fs := sim.Start(t, "lee-gpu", 2)
	fs.Step(3 * time.Minute)
	fsCfg := filepath.Join(t.TempDir(), "sidecar.yaml")
	dir := filepath.Dir(fsCfg)
	if err := os.WriteFile(fsCfg, []byte("mode: dry-run\nrm: ["+fs.URL+"]\njobhistory: "+fs.URL+"\nuser: yarn-sidecar\nstore: "+
		filepath.Join(dir, "history.db")+"\naudit_log: "+filepath.Join(dir, "audit.jsonl")+"\nsafety: {harm_margin_percent: -1, idle_window: -1s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"observe", "-o", "json"},
		{"status", "-o", "json"},
		{"deadlines", "-o", "json"},
		{"labels", "plan"},
		{"calibrate"},
		{"report", "--html", filepath.Join(t.TempDir(), "report.html")},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			onFile := runStatusCLI(t, append(args, "--config", fileCfg)...)
			if args[0] == "report" {
				if b, err := os.ReadFile(args[2]); err != nil || !strings.Contains(string(b), "root.crypto") {
					t.Errorf("report on the file store: %v, no queue in it", err)
				}
			} else if strings.TrimSpace(onFile) == "" {
				t.Fatal("no output on the file store")
			}
			onFS := runStatusCLI(t, append(args, "--config", fsCfg)...)
			if args[0] == "status" || args[0] == "deadlines" {
				// The same jobs and figures; the configuration's source and
				// version (a hash on the file store) may differ.
				if a, b := stripVersions(onFile), stripVersions(onFS); a != b {
					t.Errorf("file store and fs store differ:\nfile: %s\nfs:   %s", a, b)
				}
			}
		})
	}
	// The plan's changes are the same on both stores.
	var a, b planJSON
	if err := json.Unmarshal([]byte(runStatusCLI(t, "plan", "--config", fileCfg, "-o", "json")), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(runStatusCLI(t, "plan", "--config", fsCfg, "-o", "json")), &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a.Plan.Changes)
	jb, _ := json.Marshal(b.Plan.Changes)
	if string(ja) != string(jb) || len(a.Plan.Changes) == 0 {
		t.Errorf("plans differ or are empty:\nfile: %s\nfs:   %s", ja, jb)
	}
}

// stripVersions drops the fields that name the configuration's version or
// source and the cluster's URLs, which differ between the two clusters, and
// the warning that RM-side validation is unavailable (the file store has none).
func stripVersions(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k := range x {
				l := strings.ToLower(k)
				if strings.Contains(l, "version") || strings.Contains(l, "source") || l == "rm" || strings.Contains(l, "url") || strings.Contains(l, "validation") {
					delete(x, k)
					continue
				}
				x[k] = walk(x[k])
			}
		case []any:
			kept := x[:0]
			for i := range x {
				// The file store validates locally only, and says so.
				if str, ok := x[i].(string); ok && strings.Contains(str, "validation unavailable") {
					continue
				}
				kept = append(kept, walk(x[i]))
			}
			return kept
		}
		return v
	}
	out, _ := json.Marshal(walk(v))
	return string(out)
}

// mode: propose keeps the plan as the admin would apply it at /proposal:
// the same diff `plan -o diff` prints, the proposed file, the commands;
// nothing is written to the file or the RM.
func TestProposeModeServesTheProposal(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 2)
	c.Step(3 * time.Minute)
	cfg := fileStoreConfig(t, c, "propose")
	before, _ := os.ReadFile(c.ConfFile)
	f := daemonFlags{config: cfg, logLevel: "error"}
	d, err := f.build()
	if err != nil {
		t.Fatal(err)
	}
	if d.Proposals == nil {
		t.Fatal("mode propose without a proposal board")
	}
	rep, err := d.Loop.Once(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome.Result != "dry-run" {
		t.Errorf("propose cycle result %s, want dry-run (nothing written)", rep.Outcome.Result)
	}
	srv := httptest.NewServer(serveProposal(d.Proposals))
	defer srv.Close()
	get := func(q string) string {
		t.Helper()
		resp, err := http.Get(srv.URL + "/proposal" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET /proposal%s: %d %s", q, resp.StatusCode, b)
		}
		return string(b)
	}
	diff := get("?format=diff")
	text := get("")
	for _, w := range []string{"against " + c.ConfFile, "yarn rmadmin -refreshQueues", "patch -p1 -d " + filepath.Dir(c.ConfFile)} {
		if !strings.Contains(text, w) {
			t.Errorf("/proposal lacks %q:\n%s", w, text)
		}
	}
	if x := get("?format=xml"); !strings.Contains(x, "<configuration>") {
		t.Errorf("/proposal?format=xml:\n%s", x)
	}
	if after, _ := os.ReadFile(c.ConfFile); string(after) != string(before) {
		t.Error("propose mode wrote the live file")
	}
	if n := c.Admin.Calls("refreshQueues"); n != 0 {
		t.Errorf("propose mode refreshed the queues %d times", n)
	}
	d.Close() // the history is the daemon's until then
	if want := runStatusCLI(t, "plan", "--config", cfg, "-o", "diff"); diff != want || diff == "" {
		t.Errorf("/proposal diff differs from plan -o diff:\n%s\n---\n%s", diff, want)
	}
}

// act.via: refresh-queues through the daemon's wiring: one apply cycle on
// a file-store lee-gpu writes the file, refreshes the RM over the admin
// protocol, verifies through /scheduler and audits like a PUT.
func TestApplyViaRefreshQueues(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 2)
	c.Step(3 * time.Minute)
	cfg := fileStoreConfig(t, c, "apply")
	b, _ := os.ReadFile(cfg)
	b = append(b, []byte("act:\n  via: refresh-queues\n  admin_addresses: ["+c.AdminAddr+"]\n")...)
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var plan planJSON
	if err := json.Unmarshal([]byte(runStatusCLI(t, "apply", "--config", cfg, "-o", "json")), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Result != "applied" || plan.Plan == nil || len(plan.Plan.Changes) == 0 {
		t.Fatalf("apply via refresh-queues: %s %s (%d changes)", plan.Result, plan.Error, len(plan.Plan.Changes))
	}
	if n := c.Admin.Calls("refreshQueues"); n != 1 {
		t.Errorf("%d refreshQueues, want 1", n)
	}
	client, _ := yarn.New(yarn.Config{RMAddresses: []string{c.URL}})
	live, err := client.ConfFromScheduler(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range plan.Plan.Changes {
		if !strings.Contains(ch.Property, "capacity") {
			continue
		}
		got := live[schedconf.Key(ch.Queue, ch.Property)]
		if gf, _ := strconv.ParseFloat(got, 64); strconv.FormatFloat(gf, 'f', -1, 64) != ch.To && got != ch.To {
			t.Errorf("RM runs %s %s = %s, applied %s", ch.Queue, ch.Property, got, ch.To)
		}
	}
	audit, _ := os.ReadFile(filepath.Join(filepath.Dir(cfg), "audit.jsonl"))
	if !strings.Contains(string(audit), `"result":"applied"`) {
		t.Errorf("no applied audit record:\n%s", audit)
	}
	if _, err := os.Stat(c.ConfFile + ".sidecar-previous"); err != nil {
		t.Errorf("previous file not kept: %v", err)
	}
}
