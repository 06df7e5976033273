package act

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// fakeRM is a ConfAPI over an in-memory conf that validates like the
// Capacity Scheduler (through schedconf) and can be told to misbehave.
type fakeRM struct {
	mu      sync.Mutex
	conf    schedconf.Conf
	version int64
	puts    int

	notMutable bool
	// validateErr, when set, answers POST validate instead of schedconf.
	validateErr func(m schedconf.Mutation) error
	validates   int
	// putErr, when set, refuses the PUT (nothing changes).
	putErr error
	// readErrAfterPut, when set, fails every read once a PUT was tried.
	readErrAfterPut error
	// failPutAfterApply applies the mutation and then returns an error (an
	// RM that fails mid-apply as seen by the client: e.g. a timeout).
	failPutAfterApply bool
	// corrupt changes what is stored after a PUT (read-back mismatch).
	corrupt func(schedconf.Conf)
	// bumpVersionOnRead moves the version under the planner (another writer).
	bumpVersionOnRead bool
	// onPut runs during the PUT (e.g. cancel the caller's context).
	onPut func()
}

func (f *fakeRM) SchedulerConf(ctx context.Context) (schedconf.Conf, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.notMutable {
		return nil, fmt.Errorf("GET /ws/v1/cluster/scheduler-conf: 400: %w", ErrConfNotMutable)
	}
	if f.readErrAfterPut != nil && f.puts > 0 {
		return nil, f.readErrAfterPut
	}
	return f.conf.Clone(), nil
}

func (f *fakeRM) ConfVersion(ctx context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bumpVersionOnRead {
		f.version++
	}
	return f.version, nil
}

func (f *fakeRM) ValidateMutation(ctx context.Context, m schedconf.Mutation) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.validates++
	if f.validateErr != nil {
		return f.validateErr(m)
	}
	next, err := f.conf.Apply(m)
	if err != nil {
		return err
	}
	return schedconf.Validate(next)
}

func (f *fakeRM) UpdateConf(ctx context.Context, m schedconf.Mutation) error {
	if f.onPut != nil {
		f.onPut()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.puts++
	if f.putErr != nil {
		return f.putErr
	}
	next, err := f.conf.Apply(m)
	if err == nil {
		err = schedconf.Validate(next)
	}
	if err != nil {
		return fmt.Errorf("400: Failed to re-init queues : %w", err) // nothing changed
	}
	if f.corrupt != nil {
		f.corrupt(next)
		f.corrupt = nil // only the first PUT; the rollback lands
	}
	f.conf = next
	f.version++
	if f.failPutAfterApply {
		f.failPutAfterApply = false
		return errors.New("PUT /ws/v1/cluster/scheduler-conf: context deadline exceeded")
	}
	return nil
}

func (f *fakeRM) SetAppPriority(ctx context.Context, appID string, p int) (int, error) {
	if p > 10 {
		p = 10
	}
	return p, nil
}

func twoQueueConf() schedconf.Conf {
	return schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                                     "crypto,sort",
		"yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity":        "100",
		"yarn.scheduler.capacity.root.crypto.capacity":                            "50",
		"yarn.scheduler.capacity.root.crypto.accessible-node-labels":              "gpu",
		"yarn.scheduler.capacity.root.crypto.accessible-node-labels.gpu.capacity": "50",
		"yarn.scheduler.capacity.root.sort.capacity":                              "50",
		"yarn.scheduler.capacity.root.sort.accessible-node-labels":                "gpu",
		"yarn.scheduler.capacity.root.sort.accessible-node-labels.gpu.capacity":   "50",
	}
}

func gpuTargets(crypto, sort float64) map[string]plan.QueueTarget {
	return map[string]plan.QueueTarget{
		"root.crypto": {Capacity: map[string]float64{"gpu": crypto}, Reason: "crypto runs 2.0x faster on gpu"},
		"root.sort":   {Capacity: map[string]float64{"gpu": sort}, Reason: "sort loses nothing: 1.0x on both"},
	}
}

func newApplier(t *testing.T, api ConfAPI) (*Applier, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { audit.Close() })
	return &Applier{API: api, Audit: audit, Mode: ModeApply, Labels: []string{"gpu"},
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }}, path
}

func readAudit(t *testing.T, path string) []AuditEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	es, err := ReadAudit(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func planFor(t *testing.T, rm *fakeRM, targets map[string]plan.QueueTarget) *plan.Plan {
	t.Helper()
	p, err := plan.BuildPlan(time.Unix(0, 0), rm.conf.Clone(), rm.version, targets, plan.SafetyRules{MaxStepPercent: 100})
	if err != nil {
		t.Fatalf("BuildPlan: %v", err)
	}
	return p
}

func TestApplySafetyRules(t *testing.T) {
	cases := []struct {
		name     string
		setup    func(*fakeRM)
		targets  map[string]plan.QueueTarget
		edit     func(*plan.Plan) // tamper with the plan (e.g. an invalid mutation)
		result   Result
		errCheck func(error) bool
		changed  bool // the live conf ends with the plan applied
		puts     int
	}{
		{name: "applied and verified", targets: gpuTargets(80, 20), result: ResultApplied, changed: true, puts: 1,
			errCheck: func(err error) bool { return err == nil }},
		{name: "local validation rejects a bad sum", targets: gpuTargets(80, 20),
			edit: func(p *plan.Plan) {
				p.Mutation.UpdateQueue = append(p.Mutation.UpdateQueue, schedconf.QueueUpdate{Queue: "root.sort", Params: map[string]string{"accessible-node-labels.gpu.capacity": "30"}})
			},
			result: ResultRejected, errCheck: func(err error) bool { var r *RejectedError; return errors.As(err, &r) && r.Stage == "local" }},
		{name: "RM validate rejects", setup: func(f *fakeRM) {
			f.validateErr = rejectAllButIdentity(f.conf)
		},
			targets: gpuTargets(80, 20), result: ResultRejected,
			errCheck: func(err error) bool { var r *RejectedError; return errors.As(err, &r) && r.Stage == "rm-validate" }},
		{name: "not mutable refuses", setup: func(f *fakeRM) { f.notMutable = true }, targets: gpuTargets(80, 20),
			result: ResultRefused, errCheck: func(err error) bool { return errors.Is(err, ErrConfNotMutable) }},
		{name: "version moved skips", setup: func(f *fakeRM) { f.bumpVersionOnRead = true }, targets: gpuTargets(80, 20),
			result: ResultVersionMoved, errCheck: func(err error) bool { var v *VersionMovedError; return errors.As(err, &v) }},
		{name: "read-back mismatch rolls back", setup: func(f *fakeRM) {
			f.corrupt = func(c schedconf.Conf) {
				c["yarn.scheduler.capacity.root.crypto.accessible-node-labels.gpu.capacity"] = "70"
				c["yarn.scheduler.capacity.root.sort.accessible-node-labels.gpu.capacity"] = "30"
			}
		}, targets: gpuTargets(80, 20), result: ResultRolledBack, puts: 2,
			errCheck: func(err error) bool { var v *VerifyError; return errors.As(err, &v) }},
		// The PUT's answer is lost but it landed whole and the version moved:
		// verified by the read-back and the version, neither re-sent nor
		// rolled back (issue 20).
		{name: "PUT answer lost after it landed is verified, not rolled back", setup: func(f *fakeRM) { f.failPutAfterApply = true },
			targets: gpuTargets(80, 20), result: ResultApplied, puts: 1, changed: true,
			errCheck: func(err error) bool { return err == nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rm := &fakeRM{conf: twoQueueConf(), version: 7}
			plan := planFor(t, rm, tc.targets)
			if tc.edit != nil {
				tc.edit(plan)
			}
			if tc.setup != nil {
				tc.setup(rm)
			}
			before := rm.conf.Clone()
			a, auditPath := newApplier(t, rm)
			out, err := a.Apply(context.Background(), plan)
			if out.Result != tc.result {
				t.Fatalf("result %s, want %s (err %v)", out.Result, tc.result, err)
			}
			if !tc.errCheck(err) {
				t.Fatalf("unexpected error: %v", err)
			}
			if rm.puts != tc.puts {
				t.Errorf("%d PUTs, want %d", rm.puts, tc.puts)
			}
			rm.notMutable = false
			got, _ := rm.SchedulerConf(context.Background())
			if tc.changed {
				if got["yarn.scheduler.capacity.root.crypto.accessible-node-labels.gpu.capacity"] != "80" {
					t.Errorf("plan not applied: %v", got)
				}
			} else if m := diffOn(before, got, before, got); len(m) > 0 {
				t.Errorf("YARN left changed: %v", m)
			}
			entries := readAudit(t, auditPath)
			if len(entries) != 1 || entries[0].Result != tc.result {
				t.Fatalf("audit %+v, want one %s line", entries, tc.result)
			}
			if len(entries[0].Reasons) == 0 || entries[0].After == nil {
				t.Errorf("audit line lacks reasons or after: %+v", entries[0])
			}
		})
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	rm := &fakeRM{conf: twoQueueConf(), version: 3}
	plan := planFor(t, rm, gpuTargets(80, 20))
	dry := &DryRunAPI{Inner: rm}
	a, auditPath := newApplier(t, dry)
	a.Mode = ModeDryRun
	out, err := a.Apply(context.Background(), plan)
	if err != nil || out.Result != ResultDryRun {
		t.Fatalf("dry-run: %s %v", out.Result, err)
	}
	if rm.puts != 0 || rm.version != 3 {
		t.Fatalf("dry-run wrote to the RM: puts=%d version=%d", rm.puts, rm.version)
	}
	if len(dry.Mutations) != 1 {
		t.Fatalf("dry-run recorded %d mutations, want 1", len(dry.Mutations))
	}
	if e := readAudit(t, auditPath); len(e) != 1 || e[0].Result != ResultDryRun {
		t.Fatalf("audit: %+v", e)
	}
}

// A dry run never logs that the configuration was applied (plan, status
// and deadlines used to log "scheduler configuration applied:
// version_before=7 version_after=8" while nothing was written); apply mode
// still does.
func TestDryRunDoesNotLogApplied(t *testing.T) {
	for _, mode := range []Mode{ModeDryRun, ModeApply} {
		rm := &fakeRM{conf: twoQueueConf(), version: 3}
		plan := planFor(t, rm, gpuTargets(80, 20))
		var api ConfAPI = rm
		if mode == ModeDryRun {
			api = &DryRunAPI{Inner: rm}
		}
		a, _ := newApplier(t, api)
		a.Mode = mode
		var logs bytes.Buffer
		a.Log = hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Trace})
		if _, err := a.Apply(context.Background(), plan); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		applied := strings.Contains(logs.String(), "scheduler configuration applied")
		if applied != (mode == ModeApply) {
			t.Errorf("%s: logged %q; want \"scheduler configuration applied\" only in apply mode", mode, logs.String())
		}
	}
}

// A shutdown (cancelled context) that arrives while the PUT is in flight
// does not stop the verify: the cycle ends applied and verified.
func TestCancelDuringPutStillVerifies(t *testing.T) {
	rm := &fakeRM{conf: twoQueueConf(), version: 1}
	ctx, cancel := context.WithCancel(context.Background())
	rm.onPut = cancel
	plan := planFor(t, rm, gpuTargets(80, 20))
	a, _ := newApplier(t, rm)
	out, err := a.Apply(ctx, plan)
	if err != nil || out.Result != ResultApplied {
		t.Fatalf("want applied despite cancel during PUT, got %s %v", out.Result, err)
	}
	if out.VersionAfter != 2 {
		t.Errorf("version after %d, want 2", out.VersionAfter)
	}
}

func TestCancelBeforePutChangesNothing(t *testing.T) {
	rm := &fakeRM{conf: twoQueueConf(), version: 1}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	plan := planFor(t, rm, gpuTargets(80, 20))
	a, _ := newApplier(t, rm)
	out, err := a.Apply(ctx, plan)
	if err == nil || rm.puts != 0 {
		t.Fatalf("want no PUT after cancel, got %s puts=%d err=%v", out.Result, rm.puts, err)
	}
}

func TestBuildPlanReasonsAndLimits(t *testing.T) {
	rm := &fakeRM{conf: twoQueueConf(), version: 1}
	pl, err := plan.BuildPlan(time.Unix(0, 0), rm.conf, 1, gpuTargets(100, 0), plan.SafetyRules{MaxStepPercent: 25, HysteresisPercent: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Changes) != 2 {
		t.Fatalf("changes %+v", pl.Changes)
	}
	for _, c := range pl.Changes {
		if !c.Limited || c.Reason == "" {
			t.Errorf("change %+v: want limited with a reason", c)
		}
	}
	next, err := rm.conf.Apply(pl.Mutation)
	if err != nil {
		t.Fatal(err)
	}
	if next["yarn.scheduler.capacity.root.crypto.accessible-node-labels.gpu.capacity"] != "75" ||
		next["yarn.scheduler.capacity.root.sort.accessible-node-labels.gpu.capacity"] != "25" {
		t.Fatalf("step-limited values wrong: %v", next)
	}
	if err := schedconf.Validate(next); err != nil {
		t.Fatalf("planned conf invalid: %v", err)
	}
	if _, err := plan.BuildPlan(time.Unix(0, 0), rm.conf, 1, map[string]plan.QueueTarget{"root.nope": {}}, plan.SafetyRules{}); err == nil {
		t.Fatal("want an error for an unknown queue")
	}
}

// rejectAllButIdentity is an RM whose validation works and refuses the plan:
// the no-op probe passes.
func rejectAllButIdentity(live schedconf.Conf) func(schedconf.Mutation) error {
	probe := schedconf.IdentityMutation(live)
	return func(m schedconf.Mutation) error {
		if reflect.DeepEqual(m, probe) {
			return nil
		}
		return &yarn.MutationRejectedError{Status: 400, Message: "CapacityScheduler configuration validation failed:java.io.IOException: Failed to re-init queues : Illegal capacity of 1.1 for children of queue root"}
	}
}

// The audit records what each calibration move of the plan exposes
// (issue 32): the queue, the unmeasured partition, its containers.
func TestAuditRecordsCalibrationExposure(t *testing.T) {
	rm := &fakeRM{conf: twoQueueConf(), version: 3}
	pl := planFor(t, rm, gpuTargets(80, 20))
	pl.Calibrations = []plan.CalibrationExposure{{Queue: "root.a", Partition: "gpu", Containers: 12}}
	a, auditPath := newApplier(t, &DryRunAPI{Inner: rm})
	a.Mode = ModeDryRun
	if _, err := a.Apply(context.Background(), pl); err != nil {
		t.Fatal(err)
	}
	e := readAudit(t, auditPath)
	if len(e) != 1 || len(e[0].Calibrations) != 1 || e[0].Calibrations[0] != pl.Calibrations[0] {
		t.Fatalf("audit: %+v, want the calibration exposure %+v", e, pl.Calibrations)
	}
}
