// Package killtest kills the built daemon with SIGKILL at random points of
// its cycles — and at the named kill points (internal/killpoint): inside a
// calibration-history write, before the PUT, between the PUT and the
// verify, before the audit record — against the mini cluster in apply
// mode, restarts it, and checks after every kill that YARN holds the
// before or the after of an audit record (or of the intent of the PUT in
// flight, which the restart then records), that the calibration history
// opens and kept every attempt committed before, and that the loop resumes.
//
// `make test` runs 10 kills; `make soak` runs 100 (KILLTEST_KILLS=100).
package killtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/internal/killpoint"
	"github.com/yarn-sidecar/yarn-sidecar/internal/testutil"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// syncBuf collects a process's output for polling.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type daemon struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuf
	done           chan error
}

func start(t *testing.T, bin, cfg, pauseAt string) *daemon {
	t.Helper()
	d := &daemon{stdout: &syncBuf{}, stderr: &syncBuf{}, done: make(chan error, 1)}
	d.cmd = exec.Command(bin, "run", "--config", cfg, "--log-level", "warn")
	d.cmd.Env = append(os.Environ(), killpoint.Env+"="+pauseAt)
	d.cmd.Stdout, d.cmd.Stderr = d.stdout, d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.done <- d.cmd.Wait() }()
	return d
}

func (d *daemon) kill(t *testing.T) {
	t.Helper()
	_ = d.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		t.Fatal("daemon did not die within 10 s of SIGKILL")
	}
}

func TestKillAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the binary")
	}
	kills := 10
	if v := os.Getenv("KILLTEST_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("KILLTEST_KILLS=%q: want a positive number", v)
		}
		kills = n
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "yarn-sidecar")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/yarn-sidecar").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rm := sim.Start(t, "hetero-100", 2)
	rm.Step(10 * time.Minute)
	cfg := filepath.Join(dir, "sidecar.yaml")
	audit := filepath.Join(dir, "audit.jsonl")
	store := filepath.Join(dir, "history.db")
	conf := "mode: apply\nrm: [" + rm.URL + "]\njobhistory: " + rm.URL + "\nuser: yarn-sidecar\ninterval: 1s\n" +
		"store: " + store + "\naudit_log: " + audit + "\nlisten: 127.0.0.1:0\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}

	seed := time.Now().UnixNano()
	if v := os.Getenv("KILLTEST_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d (KILLTEST_SEED to replay), %d kills", seed, kills)
	points := append([]string{""}, killpoint.Points...) // "": a random moment
	reached := map[string]int{}
	committed := map[string]bool{}
	results := map[act.Result]int{}
	started := regexp.MustCompile(`report at http://`)
	var pending *act.AuditEntry
	linesBefore, reconciledN := 0, 0

	for i := 0; i < kills; i++ {
		point := points[i%len(points)]
		d := start(t, bin, cfg, point)
		// Virtual time moves while we wait, so jobs progress, finish (history
		// writes) and the plan changes (PUTs).
		step := func() { rm.Step(time.Second) }
		if !testutil.Poll(30*time.Second, 50*time.Millisecond, func() bool { step(); return started.MatchString(d.stdout.String()) || exited(d) }) {
			d.kill(t)
			t.Fatalf("kill %d: daemon did not start in 30 s:\n%s", i, d.stderr.String())
		}
		if exited(d) {
			t.Fatalf("kill %d: daemon exited at start:\n%s", i, d.stderr.String())
		}
		// It started, so the restart reconciliation ran: the intent left by
		// the previous kill is recorded (the new process may already have
		// written its own intent and lines after that record).
		if pending != nil {
			if !testutil.Poll(10*time.Second, 20*time.Millisecond, func() bool { return reconciled(t, audit, linesBefore, pending) }) {
				t.Fatalf("kill %d: restart did not record the interrupted attempt (cycle %d, version %d)", i, pending.Cycle, pending.VersionBefore)
			}
			reconciledN++
		}

		label := point
		if point == "" {
			label = "random"
			wait := time.Duration(rng.Int63n(int64(2500 * time.Millisecond)))
			testutil.Poll(wait, 50*time.Millisecond, func() bool { step(); return false })
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

		// The history opens, passes bbolt's checks and kept everything.
		h, err := calibrate.Open(store)
		if err != nil {
			t.Fatalf("kill %d: calibration history does not open: %v", i, err)
		}
		if err := h.Check(); err != nil {
			t.Fatalf("kill %d: calibration history check: %v", i, err)
		}
		all, err := h.All()
		h.Close()
		if err != nil {
			t.Fatalf("kill %d: read history: %v", i, err)
		}
		now := map[string]bool{}
		for _, s := range all {
			now[s.AttemptID] = true
		}
		for id := range committed {
			if !now[id] {
				t.Fatalf("kill %d: attempt %s, committed before, is gone", i, id)
			}
		}
		committed = now
		checkExplained(t, i, rm, audit, true)
		pending, linesBefore = unresolvedIntent(t, audit)
	}

	// The loop resumes: one more start, and cycles run.
	d := start(t, bin, cfg, "")
	defer d.kill(t)
	metricsRe := regexp.MustCompile(`metrics at (http://\S+/metrics)`)
	var metricsURL string
	if !testutil.Poll(60*time.Second, 100*time.Millisecond, func() bool {
		rm.Step(time.Second)
		if m := metricsRe.FindStringSubmatch(d.stdout.String()); m != nil {
			metricsURL = m[1]
		}
		return metricsURL != ""
	}) {
		t.Fatalf("the daemon did not start after the last kill:\n%s", d.stderr.String())
	}
	if !testutil.Poll(60*time.Second, 100*time.Millisecond, func() bool {
		rm.Step(time.Second)
		return cycles(metricsURL) >= 2
	}) {
		t.Fatalf("the loop did not resume after the last kill (no 2 cycles in 60 s):\n%s", d.stderr.String())
	}
	checkExplained(t, kills, rm, audit, false)
	for _, e := range readAudit(t, audit) {
		results[e.Result]++
	}
	t.Logf("kill points reached: %v; interrupted PUTs recorded at restart: %d; audit results: %v; attempts in history: %d",
		reached, reconciledN, results, len(committed))
	if len(committed) == 0 {
		t.Error("no attempt was ever stored: the store-write kill point was never exercised")
	}
	if results[act.ResultApplied]+results[act.ResultRecovered] == 0 {
		t.Error("nothing was ever applied: the kills never interrupted a PUT")
	}
}

// unresolvedIntent is the intent a killed process left whose attempt has
// no line yet, and how many lines the audit log has.
func unresolvedIntent(t *testing.T, audit string) (*act.AuditEntry, int) {
	t.Helper()
	entries := readAudit(t, audit)
	b, err := os.ReadFile(audit + ".pending")
	if err != nil {
		return nil, len(entries)
	}
	var e act.AuditEntry
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("intent file: %v", err)
	}
	if n := len(entries); n > 0 {
		last := entries[n-1]
		if last.VersionBefore == e.VersionBefore && reflect.DeepEqual(last.After, e.After) && last.Result != "pending" {
			return nil, n // its line was written; only the removal was cut
		}
	}
	return &e, len(entries)
}

// reconciled: a restart record for the intent follows the first n lines.
func reconciled(t *testing.T, audit string, n int, intent *act.AuditEntry) bool {
	entries := readAudit(t, audit)
	if len(entries) <= n {
		return false
	}
	for _, e := range entries[n:] {
		switch e.Result {
		case act.ResultRecovered, act.ResultNotApplied, act.ResultChangedOutside:
			if e.Cycle == intent.Cycle && e.VersionBefore == intent.VersionBefore {
				return true
			}
		}
	}
	return false
}

// cycles reads yarn_sidecar_cycles_total (summed over its labels).
func cycles(url string) float64 {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	total := 0.0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "yarn_sidecar_cycles_total") {
			f := strings.Fields(line)
			if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
				total += v
			}
		}
	}
	return total
}

func exited(d *daemon) bool {
	select {
	case err := <-d.done:
		d.done <- err
		return true
	default:
		return false
	}
}

func readAudit(t *testing.T, path string) []act.AuditEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	// A torn last line is legal after a kill (the restart cuts it).
	if i := bytes.LastIndexByte(b, '\n'); i+1 < len(b) {
		b = b[:i+1]
	}
	es, err := act.ReadAudit(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("audit log unreadable: %v", err)
	}
	return es
}

func auditLines(t *testing.T, path string) int { return len(readAudit(t, path)) }

// checkExplained: the live conf equals the before or the after of the last
// record that changed properties — the intent of a PUT in flight when the
// process was killed (afterKill), else the last audit record — and, with
// no intent pending, the live version is the last record's.
func checkExplained(t *testing.T, i int, rm *sim.TestCluster, audit string, afterKill bool) {
	t.Helper()
	live, version := rm.SchedulerConf()
	var ref *act.AuditEntry
	if b, err := os.ReadFile(audit + ".pending"); err == nil && afterKill {
		var e act.AuditEntry
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("kill %d: intent file: %v", i, err)
		}
		ref = &e
	}
	entries := readAudit(t, audit)
	lastVersion := int64(-1)
	for j := len(entries) - 1; j >= 0 && (ref == nil || lastVersion < 0); j-- {
		e := entries[j]
		if e.Mode != act.ModeApply {
			continue
		}
		if lastVersion < 0 && e.VersionAfter > 0 {
			lastVersion = e.VersionAfter
		}
		if ref == nil && len(e.After) > 0 {
			ref = &entries[j]
		}
	}
	if ref == nil {
		return // nothing changed yet
	}
	on := func(want map[string]string) bool {
		for k, v := range want {
			if live[k] != v {
				return false
			}
		}
		return true
	}
	if !on(ref.After) && !on(ref.Before) {
		t.Fatalf("kill %d: YARN holds neither the before nor the after of the %s record (cycle %d):\nbefore %v\nafter  %v\nlive   %v",
			i, ref.Result, ref.Cycle, ref.Before, ref.After, pick(live, ref.After))
	}
	if ref.Result != "pending" && lastVersion > 0 && version != lastVersion {
		t.Fatalf("kill %d: scheduler-conf version %d, the last record says %d", i, version, lastVersion)
	}
}

func pick(live map[string]string, keys map[string]string) string {
	var b strings.Builder
	for k := range keys {
		fmt.Fprintf(&b, "%s=%q ", k, live[k])
	}
	return b.String()
}
