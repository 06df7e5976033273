package act_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	rmadminsrv "github.com/yarn-sidecar/yarn-sidecar/testenv/rmadmin"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/rmadmin"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

const cs = schedconf.Prefix

// fileStoreApplier wires the applier to a file-store mini cluster the way
// the daemon does with act.via: refresh-queues; refresh may be wrapped.
func fileStoreApplier(t *testing.T, c *sim.FileStoreCluster, wrap func(act.RefreshFunc) act.RefreshFunc) (*act.Applier, *act.AnyStore, *act.AuditLog) {
	t.Helper()
	client, err := yarn.New(yarn.Config{RMAddresses: []string{c.URL}})
	if err != nil {
		t.Fatal(err)
	}
	refresh := act.RefreshFunc(func(ctx context.Context, addr, user string) error {
		return rmadmin.RefreshQueues(ctx, addr, user, nil)
	})
	if wrap != nil {
		refresh = wrap(refresh)
	}
	api := &act.AnyStore{YARN: act.YARN{Client: client}, CapacitySchedulerXML: c.ConfFile,
		Writer: &act.FileRefresher{Path: c.ConfFile, AdminAddrs: []string{c.AdminAddr}, User: "yarn", Refresh: refresh}}
	audit, err := act.OpenAuditLog(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { audit.Close() })
	return &act.Applier{API: api, Audit: audit, Mode: act.ModeApply, User: "yarn", Validation: &act.RMValidation{}}, api, audit
}

// plan60 plans crypto 60 / sort 40 in the default partition of lee-gpu.
func plan60(t *testing.T, api *act.AnyStore) *plan.Plan {
	t.Helper()
	ctx := context.Background()
	live, err := api.SchedulerConf(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := api.ConfVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.BuildPlan(time.Now(), live, v, map[string]plan.QueueTarget{
		"root.crypto": {Capacity: map[string]float64{"": 60}}, "root.sort": {Capacity: map[string]float64{"": 40}}}, plan.SafetyRules{MaxStepPercent: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 2 {
		t.Fatalf("plan: %+v", p.Changes)
	}
	return p
}

func running(t *testing.T, c *sim.FileStoreCluster) schedconf.Conf {
	t.Helper()
	client, _ := yarn.New(yarn.Config{RMAddresses: []string{c.URL}})
	conf, err := client.ConfFromScheduler(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return conf
}

// act.via: refresh-queues: the applier writes only the changed properties
// of capacity-scheduler.xml, keeps the previous file, refreshes the RM and
// verifies through /scheduler.
func TestFileStoreApplyWritesAndRefreshes(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 1)
	a, api, _ := fileStoreApplier(t, c, nil)
	orig, _ := os.ReadFile(c.ConfFile)
	out, err := a.Apply(context.Background(), plan60(t, api))
	if err != nil || out.Result != act.ResultApplied {
		t.Fatalf("apply: %v %v", out.Result, err)
	}
	if r := running(t, c); r[cs+"root.crypto.capacity"] != "60" || r[cs+"root.sort.capacity"] != "40" {
		t.Errorf("the RM runs crypto %s sort %s, want 60/40", r[cs+"root.crypto.capacity"], r[cs+"root.sort.capacity"])
	}
	now, _ := os.ReadFile(c.ConfFile)
	if prev, _ := os.ReadFile(c.ConfFile + ".sidecar-previous"); string(prev) != string(orig) {
		t.Error("the previous file was not kept beside it")
	}
	// Only the two values changed: same number of lines, two differ.
	ol, nl := strings.Split(string(orig), "\n"), strings.Split(string(now), "\n")
	diff := 0
	for i := range ol {
		if i < len(nl) && ol[i] != nl[i] {
			diff++
		}
	}
	if len(ol) != len(nl) || diff != 2 {
		t.Errorf("%d lines changed (file %d → %d lines), want the 2 values only:\n%s", diff, len(ol), len(nl), now)
	}
	if n := c.Admin.Calls("refreshQueues"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
}

// A refused refresh: the previous file is put back and refreshed, the RM
// keeps its queues, the audit records a rejection.
func TestFileStoreRefusedRefreshRestored(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 1)
	refused := false
	a, api, _ := fileStoreApplier(t, c, func(next act.RefreshFunc) act.RefreshFunc {
		return func(ctx context.Context, addr, user string) error {
			if !refused {
				refused = true // what an RM with a stricter validator than the sidecar's would do
				return &rmadmin.RefusedError{Addr: addr, Reason: "java.io.IOException: Failed to re-init queues : refused for the test"}
			}
			return next(ctx, addr, user)
		}
	})
	orig, _ := os.ReadFile(c.ConfFile)
	out, err := a.Apply(context.Background(), plan60(t, api))
	var re *rmadmin.RefusedError
	if out.Result != act.ResultRejected || !errors.As(err, &re) {
		t.Fatalf("refused refresh: %v %v, want rejected with the RefusedError", out.Result, err)
	}
	if now, _ := os.ReadFile(c.ConfFile); string(now) != string(orig) {
		t.Errorf("the file was not restored:\n%s", now)
	}
	if r := running(t, c); r[cs+"root.crypto.capacity"] != "50" {
		t.Errorf("the RM runs crypto %s, want 50", r[cs+"root.crypto.capacity"])
	}
}

// A refresh that answers but loads nothing (the RM runs other queues than
// the file says): the verify through /scheduler sees it and the applier
// rolls back, which puts the previous file back.
func TestFileStoreVerifyDifferenceRolledBack(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 1)
	a, api, _ := fileStoreApplier(t, c, func(next act.RefreshFunc) act.RefreshFunc {
		return func(context.Context, string, string) error { return nil } // answers, refreshes nothing
	})
	orig, _ := os.ReadFile(c.ConfFile)
	out, err := a.Apply(context.Background(), plan60(t, api))
	var ve *act.VerifyError
	if out.Result != act.ResultRolledBack || !errors.As(err, &ve) {
		t.Fatalf("apply: %v %v, want rolled back after a verify difference", out.Result, err)
	}
	if now, _ := os.ReadFile(c.ConfFile); string(now) != string(orig) {
		t.Errorf("the file was not restored:\n%s", now)
	}
}

// An admin's edit nobody refreshed is not refreshed by the sidecar.
func TestFileStoreRefusesOverAnUnrefreshedEdit(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 1)
	a, api, _ := fileStoreApplier(t, c, nil)
	p := plan60(t, api)
	b, _ := os.ReadFile(c.ConfFile)
	edited := strings.Replace(string(b), "<name>"+cs+"root.sort.maximum-capacity</name>\n    <value>100</value>", "<name>"+cs+"root.sort.maximum-capacity</name>\n    <value>90</value>", 1)
	if edited == string(b) {
		t.Fatal("test edit did not apply")
	}
	os.WriteFile(c.ConfFile, []byte(edited), 0o644)
	_, err := a.Apply(context.Background(), p)
	if !errors.Is(err, act.ErrFileNotRefreshed) {
		t.Fatalf("apply over an unrefreshed edit: %v, want ErrFileNotRefreshed", err)
	}
	if n := c.Admin.Calls("refreshQueues"); n != 0 {
		t.Errorf("%d refreshes, want none", n)
	}
}

// Without act.via: refresh-queues the file store refuses before anything.
func TestFileStoreWithoutWriterRefuses(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 1)
	a, api, _ := fileStoreApplier(t, c, nil)
	api.Writer = nil
	out, err := a.Apply(context.Background(), plan60(t, api))
	if out.Result != act.ResultRefused || !errors.Is(err, act.ErrConfNotMutable) || !strings.Contains(err.Error(), "refresh-queues") {
		t.Fatalf("apply without a writer: %v %v", out.Result, err)
	}
}

// RM HA with a shared file: the standby refuses admin calls and loads the
// file when it becomes active, so it is skipped; the active one refreshes.
func TestFileStoreHASkipsTheStandby(t *testing.T) {
	c := sim.StartFileStore(t, "lee-gpu", 1)
	standby, err := rmadminsrv.Start(func(string) error { return rmadminsrv.ErrStandby })
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()
	a, api, _ := fileStoreApplier(t, c, nil)
	api.Writer.(*act.FileRefresher).AdminAddrs = []string{standby.Addr(), c.AdminAddr}
	out, err := a.Apply(context.Background(), plan60(t, api))
	if err != nil || out.Result != act.ResultApplied {
		t.Fatalf("apply with a standby first: %v %v", out.Result, err)
	}
	if standby.Calls("refreshQueues") != 1 || c.Admin.Calls("refreshQueues") != 1 {
		t.Errorf("refreshes: standby %d, active %d; want 1 each", standby.Calls("refreshQueues"), c.Admin.Calls("refreshQueues"))
	}
	// Only standbys: nothing is refreshed, the file is put back.
	orig, _ := os.ReadFile(c.ConfFile)
	api.Writer.(*act.FileRefresher).AdminAddrs = []string{standby.Addr()}
	live, _ := api.SchedulerConf(context.Background())
	v, _ := api.ConfVersion(context.Background())
	back, err := plan.BuildPlan(time.Now(), live, v, map[string]plan.QueueTarget{
		"root.crypto": {Capacity: map[string]float64{"": 50}}, "root.sort": {Capacity: map[string]float64{"": 50}}}, plan.SafetyRules{MaxStepPercent: 100})
	if err != nil {
		t.Fatal(err)
	}
	out, err = a.Apply(context.Background(), back)
	if out.Result == act.ResultApplied || err == nil || !strings.Contains(err.Error(), "no active ResourceManager") {
		t.Fatalf("apply with only a standby: %v %v", out.Result, err)
	}
	if now, _ := os.ReadFile(c.ConfFile); string(now) != string(orig) {
		t.Error("the file was not put back")
	}
}
