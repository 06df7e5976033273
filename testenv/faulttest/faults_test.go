// Package faulttest runs the applier against an RM HA pair of mini RMs
// (one state, two servers) behind rmweb.FaultSwitch, injecting each fault
// on each request of the apply sequence, and checks that YARN is never
// half-configured, that GETs are retried a bounded number of times, that a
// PUT is never re-sent blindly (the version and the read-back say whether
// it landed), and that every attempt is audited.
package faulttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

const (
	pConf     = "/ws/v1/cluster/scheduler-conf"
	pVersion  = "/ws/v1/cluster/scheduler-conf/version"
	pValidate = "/ws/v1/cluster/scheduler-conf/validate"
	retries   = 2 // the client's default: 3 tries per RM for a GET
)

type pair struct {
	c        *sim.Cluster
	sw1, sw2 *rmweb.FaultSwitch
	client   *yarn.Client
}

func newPair(t *testing.T) *pair {
	t.Helper()
	sc, err := sim.LoadScenario("lee-gpu")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := &pair{c: c, sw1: &rmweb.FaultSwitch{}, sw2: &rmweb.FaultSwitch{}}
	p.sw1.Peer = p.sw2
	p.sw2.SetStandby(true)
	s1 := httptest.NewServer(p.sw1.Wrap(c.Handler()))
	s2 := httptest.NewServer(p.sw2.Wrap(c.Handler()))
	t.Cleanup(s1.Close)
	t.Cleanup(s2.Close)
	p.client, err = yarn.New(yarn.Config{RMAddresses: []string{s1.URL, s2.URL}, User: "yarn-sidecar", Timeout: time.Second, Retries: retries})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// movePlan moves 10 points of default-partition capacity from sort to crypto.
func movePlan(t *testing.T, live schedconf.Conf, version int64) *plan.Plan {
	t.Helper()
	desired := live.Clone()
	a, b := schedconf.Key("root.crypto", "capacity"), schedconf.Key("root.sort", "capacity")
	av, _ := strconv.ParseFloat(live[a], 64)
	bv, _ := strconv.ParseFloat(live[b], 64)
	desired[a], desired[b] = strconv.FormatFloat(av+10, 'f', -1, 64), strconv.FormatFloat(bv-10, 'f', -1, 64)
	return &plan.Plan{ConfVersion: version, Base: live, Desired: desired, Mutation: schedconf.Diff(live, desired),
		Changes: []plan.Change{{Queue: "root.crypto", Property: "capacity", From: live[a], To: desired[a]},
			{Queue: "root.sort", Property: "capacity", From: live[b], To: desired[b]}}}
}

func TestApplyUnderRMFaults(t *testing.T) {
	faults := []rmweb.Fault{rmweb.Fault5xx, rmweb.FaultTimeout, rmweb.FaultReset, rmweb.FaultSlowBody,
		rmweb.FaultTruncated, rmweb.FaultResetDone, rmweb.FaultStandby}
	// Every request of the sequence: read conf, version, validate, version
	// again, PUT, read back conf, version after.
	steps := []struct {
		method, path string
		nth          int
	}{
		{"GET", pConf, 1}, {"GET", pVersion, 1}, {"POST", pValidate, 1}, {"GET", pVersion, 2},
		{"PUT", pConf, 1}, {"GET", pConf, 2}, {"GET", pVersion, 3},
	}
	for _, st := range steps {
		for _, f := range faults {
			name := fmt.Sprintf("%s %s #%d %s", st.method, filepath.Base(st.path), st.nth, f)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				p := newPair(t)
				live, version := p.c.SchedulerConf()
				pl := movePlan(t, live, version)
				auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
				audit, err := act.OpenAuditLog(auditPath)
				if err != nil {
					t.Fatal(err)
				}
				defer audit.Close()
				ap := &act.Applier{API: act.YARN{Client: p.client}, Audit: audit, Mode: act.ModeApply,
					WriteTimeout: 20 * time.Second}
				p.sw1.Set(rmweb.Rule{Method: st.method, Path: st.path, Nth: st.nth, Fault: f})
				p.sw2.Set()
				p.sw2.SetStandby(true)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				out, applyErr := ap.Apply(ctx, pl)

				// Not half-applied: the conf is wholly the old or wholly the new.
				got, gotVersion := p.c.SchedulerConf()
				isOld, isNew := same(got, live, pl), same(got, pl.Desired, pl)
				if !isOld && !isNew {
					t.Fatalf("half-applied: %s=%s %s=%s (result %s, err %v)", key(0), got[key(0)], key(1), got[key(1)], out.Result, applyErr)
				}
				// The outcome says which.
				switch out.Result {
				case act.ResultApplied:
					if !isNew {
						t.Fatalf("result applied, conf is the old one")
					}
				case act.ResultRolledBack, act.ResultRejected, act.ResultVersionMoved:
					if !isOld {
						t.Fatalf("result %s, conf is the new one", out.Result)
					}
				case act.ResultFailed:
					var rb *act.RollbackError
					if errors.As(applyErr, &rb) {
						t.Logf("rollback failed (conf new=%v): %v", isNew, applyErr)
					} else if !isOld {
						t.Fatalf("result failed without a rollback error, conf is the new one: %v", applyErr)
					}
				default:
					t.Fatalf("unexpected result %s (%v)", out.Result, applyErr)
				}
				// A PUT is never re-sent blindly: at most the mutation and one
				// rollback reach the RMs.
				puts := p.sw1.Requests("PUT", pConf) + p.sw2.Requests("PUT", pConf)
				if puts > 2 {
					t.Fatalf("%d PUTs reached the RMs (the mutation and a rollback at most)", puts)
				}
				if puts == 2 && out.Result == act.ResultApplied {
					t.Fatalf("two PUTs for an applied result")
				}
				// Bounded GET retries: per RM, 1+retries tries per GET call.
				for _, sw := range []*rmweb.FaultSwitch{p.sw1, p.sw2} {
					for _, path := range []string{pConf, pVersion} {
						if n := sw.Requests("GET", path); n > 8*(1+retries) {
							t.Fatalf("%d GETs of %s on one RM: retries not bounded", n, path)
						}
					}
				}
				// Audited: one line with the result and the versions.
				b, err := os.ReadFile(auditPath)
				if err != nil {
					t.Fatal(err)
				}
				entries, err := act.ReadAudit(bytes.NewReader(b))
				if err != nil || len(entries) != 1 {
					t.Fatalf("audit: %d entries, %v", len(entries), err)
				}
				if entries[0].Result != out.Result {
					t.Fatalf("audit says %s, outcome %s", entries[0].Result, out.Result)
				}
				if isNew && out.Result == act.ResultApplied && entries[0].VersionAfter != gotVersion {
					t.Fatalf("audit versionAfter %d, RM version %d", entries[0].VersionAfter, gotVersion)
				}
				t.Logf("result %s; PUTs %d; conf new=%v", out.Result, puts, isNew)
			})
		}
	}
}

func key(i int) string {
	if i == 0 {
		return schedconf.Key("root.crypto", "capacity")
	}
	return schedconf.Key("root.sort", "capacity")
}

// same compares on the properties the plan touches.
func same(got, want schedconf.Conf, pl *plan.Plan) bool {
	for k := range pl.Desired {
		if got[k] != want[k] {
			return false
		}
	}
	for k := range pl.Base {
		if got[k] != want[k] {
			return false
		}
	}
	return true
}
