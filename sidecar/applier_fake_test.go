package sidecar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// A copy of sidecar/act's test RM and applier helpers (act/apply_test.go):
// the loop's tests here (shields, block maps, plan encoding through the
// applier) drive a real act.Applier against it, and test files cannot be
// imported across packages.

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
		return nil, fmt.Errorf("GET /ws/v1/cluster/scheduler-conf: 400: %w", act.ErrConfNotMutable)
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

func newApplier(t *testing.T, api act.ConfAPI) (*act.Applier, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := act.OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { audit.Close() })
	return &act.Applier{API: api, Audit: audit, Mode: act.ModeApply, Labels: []string{"gpu"},
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }}, path
}

func readAudit(t *testing.T, path string) []act.AuditEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	es, err := act.ReadAudit(bytes.NewReader(b))
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
