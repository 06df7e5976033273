package act

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// leveldbValidate is the real 3.3.6 RM's answer to every validate on a
// leveldb store, as the yarn client reports it.
func leveldbValidate(t *testing.T) func(schedconf.Mutation) error {
	t.Helper()
	body, err := os.ReadFile("testdata/validate_leveldb.body")
	if err != nil {
		t.Fatal(err)
	}
	return func(schedconf.Mutation) error {
		return &yarn.MutationRejectedError{Status: 400, Message: string(body)}
	}
}

func remote(status int, msg string) func(schedconf.Mutation) error {
	return func(schedconf.Mutation) error {
		return &yarn.RemoteError{Method: "POST", URL: "http://rm:8088/ws/v1/cluster/scheduler-conf/validate", Status: status, Message: msg}
	}
}

// noActiveRM stands for the client's "no active RM" error (a standby's 307
// with Refresh and no Location) until yarn exports ErrNoActiveRM.
type noActiveRM struct{}

func (noActiveRM) Error() string    { return "Can not find any active RM. Will retry in next 5 seconds." }
func (noActiveRM) NoActiveRM() bool { return true }

// The applier tells "the RM rejected this configuration" from "the RM could
// not validate" by probing with a no-op, never by the message alone.
func TestValidationPaths(t *testing.T) {
	cases := []struct {
		name       string
		validate   func(t *testing.T, live schedconf.Conf) func(schedconf.Mutation) error
		putErr     error
		result     Result
		path       ValidationPath
		reason     string // substring of validationReason
		stage      string // RejectedError stage, "" = none
		puts       int
		applied    bool
		noActiveRM bool
	}{
		{name: "validate works and accepts", result: ResultApplied, path: ValidationRM, puts: 1, applied: true},
		{name: "validate works and rejects (400, probe passes)",
			validate: func(_ *testing.T, live schedconf.Conf) func(schedconf.Mutation) error {
				return rejectAllButIdentity(live)
			},
			result: ResultRejected, path: ValidationRM, stage: "rm-validate"},
		{name: "leveldb lock: every validate fails, applied local-only",
			validate: func(t *testing.T, _ schedconf.Conf) func(schedconf.Mutation) error { return leveldbValidate(t) },
			result:   ResultApplied, path: ValidationLocalOnly, reason: "leveldb", puts: 1, applied: true},
		{name: "leveldb lock and the RM rejects the PUT: still a rejection",
			validate: func(t *testing.T, _ schedconf.Conf) func(schedconf.Mutation) error { return leveldbValidate(t) },
			putErr:   &yarn.MutationRejectedError{Status: 400, Message: "Failed to re-init queues : Illegal capacity of 1.1 for children of queue root"},
			result:   ResultRejected, path: ValidationLocalOnly, reason: "leveldb", stage: "rm-apply", puts: 1},
		{name: "no validate endpoint (404)",
			validate: func(*testing.T, schedconf.Conf) func(schedconf.Mutation) error { return remote(404, "Not Found") },
			result:   ResultApplied, path: ValidationLocalOnly, reason: "HTTP 404", puts: 1, applied: true},
		{name: "validate not allowed (405)",
			validate: func(*testing.T, schedconf.Conf) func(schedconf.Mutation) error {
				return remote(405, "Method Not Allowed")
			},
			result: ResultApplied, path: ValidationLocalOnly, reason: "HTTP 405", puts: 1, applied: true},
		{name: "validate fails internally (500)",
			validate: func(*testing.T, schedconf.Conf) func(schedconf.Mutation) error {
				return remote(500, "NullPointerException")
			},
			result: ResultApplied, path: ValidationLocalOnly, reason: "HTTP 500", puts: 1, applied: true},
		{name: "a transient 503 on this mutation only (the no-op would pass): local-only, not a rejection",
			validate: func(_ *testing.T, live schedconf.Conf) func(schedconf.Mutation) error {
				probe := schedconf.IdentityMutation(live)
				return func(m schedconf.Mutation) error {
					if reflect.DeepEqual(m, probe) {
						return nil
					}
					return remote(503, "Service Unavailable")(m)
				}
			},
			result: ResultApplied, path: ValidationLocalOnly, reason: "could not validate this time", puts: 1, applied: true},
		{name: "validate times out",
			validate: func(*testing.T, schedconf.Conf) func(schedconf.Mutation) error {
				return func(schedconf.Mutation) error {
					return fmt.Errorf("POST validate: %w", context.DeadlineExceeded)
				}
			},
			result: ResultApplied, path: ValidationLocalOnly, reason: "timed out", puts: 1, applied: true},
		{name: "no active RM: does not act",
			validate: func(*testing.T, schedconf.Conf) func(schedconf.Mutation) error {
				return func(schedconf.Mutation) error { return fmt.Errorf("POST validate: %w", noActiveRM{}) }
			},
			result: ResultFailed, noActiveRM: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rm := &fakeRM{conf: twoQueueConf(), version: 4, putErr: tc.putErr}
			if tc.validate != nil {
				rm.validateErr = tc.validate(t, rm.conf)
			}
			plan := planFor(t, rm, gpuTargets(80, 20))
			a, auditPath := newApplier(t, rm)
			out, err := a.Apply(context.Background(), plan)
			if out.Result != tc.result {
				t.Fatalf("result %s, want %s (err %v)", out.Result, tc.result, err)
			}
			var rej *RejectedError
			if tc.stage != "" && (!errors.As(err, &rej) || rej.Stage != tc.stage) {
				t.Fatalf("err %v, want a rejection at stage %s", err, tc.stage)
			}
			if tc.stage == "" && tc.result == ResultApplied && err != nil {
				t.Fatalf("err %v", err)
			}
			if tc.noActiveRM && (err == nil || !strings.Contains(err.Error(), "no active ResourceManager")) {
				t.Fatalf("err %v, want no active ResourceManager", err)
			}
			if rm.puts != tc.puts {
				t.Errorf("%d PUTs, want %d", rm.puts, tc.puts)
			}
			got := rm.conf[schedconf.Key("root.crypto", "accessible-node-labels.gpu.capacity")]
			if tc.applied != (got == "80") {
				t.Errorf("crypto gpu capacity %s; applied=%v", got, tc.applied)
			}
			es := readAudit(t, auditPath)
			if len(es) != 1 {
				t.Fatalf("%d audit lines", len(es))
			}
			if es[0].Validation != tc.path || !strings.Contains(es[0].ValidationReason, tc.reason) {
				t.Errorf("audit validation %q reason %q, want %q containing %q", es[0].Validation, es[0].ValidationReason, tc.path, tc.reason)
			}
			if tc.path == ValidationRM && es[0].ValidationReason != "" {
				t.Errorf("rm path with a reason: %q", es[0].ValidationReason)
			}
		})
	}
}

// The daemon says once that RM-side validation is unavailable; later cycles
// reuse the verdict without asking again until Retry passes, then ask again
// and say when it works again.
func TestValidationUnavailableLoggedOnce(t *testing.T) {
	var logBuf bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Info})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	shared := &RMValidation{Retry: 10 * time.Minute, Now: func() time.Time { return now }}
	rm := &fakeRM{conf: twoQueueConf(), version: 1}
	rm.validateErr = leveldbValidate(t)
	for i, want := range []float64{80, 60, 40} {
		a, auditPath := newApplier(t, rm)
		a.Log, a.Validation = log, shared
		plan := planFor(t, rm, gpuTargets(want, 100-want))
		out, err := a.Apply(context.Background(), plan)
		if err != nil || out.Result != ResultApplied {
			t.Fatalf("cycle %d: %s %v", i, out.Result, err)
		}
		if e := readAudit(t, auditPath); e[0].Validation != ValidationLocalOnly {
			t.Fatalf("cycle %d: validation %q", i, e[0].Validation)
		}
	}
	if n := strings.Count(logBuf.String(), "RM-side validation is unavailable"); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, logBuf.String())
	}
	if rm.validates != 2 {
		t.Errorf("%d validate calls, want 2 (the plan and the no-op probe, then the verdict is reused)", rm.validates)
	}
	// After Retry, validation is tried again; it works now (store changed).
	now = now.Add(11 * time.Minute)
	rm.validateErr = nil
	a, auditPath := newApplier(t, rm)
	a.Log, a.Validation = log, shared
	if out, err := a.Apply(context.Background(), planFor(t, rm, gpuTargets(50, 50))); err != nil || out.Result != ResultApplied {
		t.Fatalf("after retry: %s %v", out.Result, err)
	}
	if e := readAudit(t, auditPath); e[0].Validation != ValidationRM {
		t.Fatalf("after retry: validation %q, want rm", e[0].Validation)
	}
	if !strings.Contains(logBuf.String(), "RM-side validation works again") {
		t.Errorf("recovery not logged:\n%s", logBuf.String())
	}
}

// Local validation refuses what the real RM accepts wrongly, before any
// request: an update-queue of a queue not in the live tree, a label the
// cluster does not have, a global key of a queue that does not exist.
func TestLocalGuardsBeforeSending(t *testing.T) {
	cases := []struct {
		name string
		m    schedconf.Mutation
		want string
	}{
		{"unknown queue", schedconf.Mutation{UpdateQueue: []schedconf.QueueUpdate{{Queue: "root.nosuch", Params: map[string]string{"capacity": "10"}}}},
			"queue root.nosuch is not in the live queue tree"},
		{"unknown label", schedconf.Mutation{UpdateQueue: []schedconf.QueueUpdate{{Queue: "root.crypto", Params: map[string]string{"accessible-node-labels": "gpu,fpga"}}}},
			`node label "fpga" does not exist`},
		{"unknown label in a default expression", schedconf.Mutation{UpdateQueue: []schedconf.QueueUpdate{{Queue: "root.crypto", Params: map[string]string{"default-node-label-expression": "fpga"}}}},
			`node label "fpga" does not exist`},
		{"global key of a queue not in the tree", schedconf.Mutation{GlobalUpdates: map[string]string{"yarn.scheduler.capacity.root.nosuch.capacity": "10"}},
			"root.nosuch, which is not in the live queue tree"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rm := &fakeRM{conf: twoQueueConf(), version: 2}
			plan := planFor(t, rm, gpuTargets(80, 20))
			plan.Mutation = tc.m
			a, auditPath := newApplier(t, rm)
			out, err := a.Apply(context.Background(), plan)
			var rej *RejectedError
			if out.Result != ResultRejected || !errors.As(err, &rej) || rej.Stage != "local" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s %v, want a local rejection containing %q", out.Result, err, tc.want)
			}
			if rm.validates != 0 || rm.puts != 0 {
				t.Errorf("sent %d validates and %d PUTs before refusing", rm.validates, rm.puts)
			}
			if e := readAudit(t, auditPath); e[0].Result != ResultRejected || !strings.Contains(e[0].Error, tc.want) {
				t.Errorf("audit %+v", e[0])
			}
		})
	}
	// Labels read from the API when not given (the daemon's case).
	rm := &labelRM{fakeRM: &fakeRM{conf: twoQueueConf(), version: 2}, labels: []string{"gpu"}}
	plan := planFor(t, rm.fakeRM, gpuTargets(80, 20))
	plan.Mutation = cases[1].m
	a, _ := newApplier(t, rm)
	a.Labels = nil
	if out, err := a.Apply(context.Background(), plan); out.Result != ResultRejected || err == nil {
		t.Fatalf("labels from the API: %s %v", out.Result, err)
	}
	if rm.asked != 1 {
		t.Errorf("labels asked %d times", rm.asked)
	}
}

type labelRM struct {
	*fakeRM
	labels []string
	asked  int
}

func (l *labelRM) ClusterLabels(context.Context) ([]string, error) { l.asked++; return l.labels, nil }

// A rollback restores every queue property exactly; a global key the failed
// apply created can only be reset to "" (the RM keeps a global key once
// written), which rollback verifies and records as residue.
func TestRollbackOfNewGlobalKey(t *testing.T) {
	const key = schedconf.Prefix + "rack-locality-full-reset"
	rm := &fakeRM{conf: twoQueueConf(), version: 5}
	before := rm.conf.Clone()
	if _, ok := before[key]; ok {
		t.Fatal("fixture already has the key")
	}
	pl := planFor(t, rm, gpuTargets(80, 20))
	pl.SetGlobals([]plan.GlobalChange{{Key: key, Value: "false", Reason: "labelled partition without HDFS data"}})
	if pl.Mutation.GlobalUpdates[key] != "false" {
		t.Fatalf("plan lacks the global: %+v", pl.Mutation)
	}
	rm.corrupt = func(c schedconf.Conf) { c[schedconf.Key("root.sort", "accessible-node-labels.gpu.capacity")] = "21" }
	a, auditPath := newApplier(t, rm)
	out, err := a.Apply(context.Background(), pl)
	if out.Result != ResultRolledBack {
		t.Fatalf("%s %v, want rolled-back", out.Result, err)
	}
	for k, v := range before {
		if rm.conf[k] != v {
			t.Errorf("after rollback %s = %q, want %q", k, rm.conf[k], v)
		}
	}
	for k, v := range rm.conf {
		if _, was := before[k]; !was && !(k == key && v == "") {
			t.Errorf("after rollback %s = %q was not there before", k, v)
		}
	}
	if v, present := rm.conf[key]; !present || v != "" {
		t.Errorf("global key after rollback: present=%v %q, want present as \"\" as the real RM leaves it", present, v)
	}
	e := readAudit(t, auditPath)
	if len(e[0].RollbackResidue) != 1 || e[0].RollbackResidue[0] != key {
		t.Errorf("audit rollbackResidue %v, want [%s]", e[0].RollbackResidue, key)
	}
}

// A PUT that no active RM took (failover under way) is never assumed
// applied, and never "rolled back" blind against no RM.
func TestPutWithNoActiveRM(t *testing.T) {
	for _, readsFail := range []bool{false, true} {
		t.Run(fmt.Sprintf("reads fail %v", readsFail), func(t *testing.T) {
			rm := &fakeRM{conf: twoQueueConf(), version: 3, putErr: fmt.Errorf("PUT scheduler-conf: %w", noActiveRM{})}
			if readsFail {
				rm.readErrAfterPut = fmt.Errorf("GET scheduler-conf: %w", noActiveRM{})
			}
			before := rm.conf.Clone()
			plan := planFor(t, rm, gpuTargets(80, 20))
			a, auditPath := newApplier(t, rm)
			out, err := a.Apply(context.Background(), plan)
			if out.Result != ResultFailed || err == nil || !strings.Contains(err.Error(), "no active ResourceManager took the PUT") {
				t.Fatalf("%s %v, want failed: no active ResourceManager took the PUT", out.Result, err)
			}
			var rb *RollbackError
			if errors.As(err, &rb) {
				t.Fatalf("rolled back against no RM: %v", err)
			}
			if rm.puts != 1 {
				t.Errorf("%d PUTs, want the one (no rollback PUT)", rm.puts)
			}
			if m := diffOn(before, rm.conf, before, rm.conf); len(m) > 0 {
				t.Errorf("conf changed: %v", m)
			}
			if e := readAudit(t, auditPath); e[0].Result != ResultFailed || !strings.Contains(e[0].Error, "no active ResourceManager") {
				t.Errorf("audit %+v", e[0])
			}
		})
	}
}
