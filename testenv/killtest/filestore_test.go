package killtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/internal/killpoint"
	"github.com/yarn-sidecar/yarn-sidecar/internal/testutil"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/rmadmin"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestKillAnywhereFileStore kills the daemon acting on a file-store RM
// (act.via: refresh-queues) at the file store's points — before the file
// write (the intent on disk), between the file write and the refresh,
// between the refresh and the verify, before the audit record — and at
// random moments. After each kill, the restart's reconciliation runs (here
// in-process, as the daemon runs it first at start), and then YARN and
// capacity-scheduler.xml both hold the before or the after of one record:
// the interrupted attempt's, or the last audit record's.
func TestKillAnywhereFileStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the binary")
	}
	kills := len(killpoint.FileStorePoints) + 1 // each point once, and a random moment
	if v := os.Getenv("KILLTEST_KILLS"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			kills = n
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "yarn-sidecar")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/yarn-sidecar").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rm := sim.StartFileStore(t, "hetero-100", 2)
	rm.Step(10 * time.Minute)
	cfg := filepath.Join(dir, "sidecar.yaml")
	audit := filepath.Join(dir, "audit.jsonl")
	conf := "mode: apply\nrm: [" + rm.URL + "]\njobhistory: " + rm.URL + "\nuser: yarn-sidecar\ninterval: 1s\n" +
		"store: " + filepath.Join(dir, "history.db") + "\naudit_log: " + audit + "\nlisten: 127.0.0.1:0\n" +
		"hadoop_conf_dir: " + filepath.Dir(rm.ConfFile) + "\nact:\n  via: refresh-queues\n  admin_addresses: [" + rm.AdminAddr + "]\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	client, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}})
	if err != nil {
		t.Fatal(err)
	}
	api := &act.AnyStore{YARN: act.YARN{Client: client}, CapacitySchedulerXML: rm.ConfFile,
		Writer: &act.FileRefresher{Path: rm.ConfFile, AdminAddrs: []string{rm.AdminAddr}, User: "yarn-sidecar",
			Refresh: func(ctx context.Context, addr, user string) error { return rmadmin.RefreshQueues(ctx, addr, user, nil) }}}

	points := append([]string{""}, killpoint.FileStorePoints...)
	reached := map[string]int{}
	results := map[act.Result]int{}
	started := regexp.MustCompile(`report at http://`)
	for i := 0; i < kills; i++ {
		point := points[i%len(points)]
		d := start(t, bin, cfg, point)
		step := func() { rm.Step(time.Second) }
		if !testutil.Poll(30*time.Second, 50*time.Millisecond, func() bool { step(); return started.MatchString(d.stdout.String()) || exited(d) }) || exited(d) {
			d.kill(t)
			t.Fatalf("kill %d: daemon did not start:\n%s", i, d.stderr.String())
		}
		label := point
		if point == "" {
			label = "random"
			testutil.Poll(time.Duration(1+i%3)*700*time.Millisecond, 50*time.Millisecond, func() bool { step(); return false })
		} else if testutil.Poll(20*time.Second, 20*time.Millisecond, func() bool {
			step()
			return strings.Contains(d.stderr.String(), "paused at kill point "+point)
		}) {
			reached[point]++
		} else {
			label = point + " (not reached in 20 s)"
		}
		d.kill(t)
		t.Logf("kill %d at %s", i, label)

		// What the restart does first: reconcile (and put back a file no
		// refresh took), then YARN and the file must agree with a record.
		ref, _ := unresolvedIntent(t, audit)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := act.ReconcileAudit(ctx, audit, api, nil)
		cancel()
		if err != nil {
			t.Fatalf("kill %d: reconcile: %v", i, err)
		}
		if ref == nil {
			ref = lastChange(t, audit)
		}
		checkFileAndYARN(t, i, rm, ref)
	}
	for _, e := range readAudit(t, audit) {
		results[e.Result]++
	}
	t.Logf("kill points reached: %v; audit results (restart records included): %v; refreshQueues served: %d", reached, results, rm.Admin.Calls("refreshQueues"))
	if results[act.ResultApplied]+results[act.ResultRecovered] == 0 {
		t.Error("nothing was ever applied: the kills never interrupted a write")
	}
	if reached[killpoint.AfterFileWrite] == 0 {
		t.Error("no kill between the file write and the refresh")
	}
}

// lastChange is the last apply-mode audit record that changed properties.
func lastChange(t *testing.T, audit string) *act.AuditEntry {
	entries := readAudit(t, audit)
	for j := len(entries) - 1; j >= 0; j-- {
		if entries[j].Mode == act.ModeApply && len(entries[j].After) > 0 {
			return &entries[j]
		}
	}
	return nil
}

// checkFileAndYARN: what the RM runs and what capacity-scheduler.xml says
// both equal ref's before, or both its after, on ref's properties.
func checkFileAndYARN(t *testing.T, i int, rm *sim.FileStoreCluster, ref *act.AuditEntry) {
	t.Helper()
	if ref == nil {
		return
	}
	live, _ := rm.SchedulerConf()
	file, err := yarn.CapacitySchedulerConf(rm.ConfFile)
	if err != nil {
		t.Fatalf("kill %d: the file does not parse: %v", i, err)
	}
	on := func(c schedconf.Conf, want map[string]string) bool {
		for k, v := range want {
			if c[k] != v && !act.SameValue(c[k], v) {
				return false
			}
		}
		return true
	}
	switch {
	case on(live, ref.After) && on(file, ref.After):
	case on(live, ref.Before) && on(file, ref.Before):
	default:
		t.Fatalf("kill %d: YARN and the file do not both hold the before or the after of the %s record (cycle %d):\nbefore %v\nafter  %v\nyarn   %s\nfile   %s",
			i, ref.Result, ref.Cycle, ref.Before, ref.After, pick(live, ref.After), pick(file, ref.After))
	}
}
