// Package sidecar is the daemon's plumbing: the control loop observe →
// calibrate → decide → act → report (loop.go), the config (config*.go),
// the one assembly of the decider from the config (assemble.go,
// NewDecider), HA and the state directory (ha.go, config_state.go), the
// admin's baseline (baseline.go) and first-seen capacities
// (firstseen.go), block maps and input locality (blockmaps.go,
// locality.go), the calibration lend's file (lend_store.go), the label
// layout (layout_step.go), the preemption shields' lift and recovery, and
// the status board each cycle records (status.go, record.go).
//
// The rooms by role are sub-packages (go list ./sidecar/...):
//
//   - sidecar/decide: the decision, pure (no I/O, no clock): the
//     pipeline of steps, PSDecider and the Decision it returns;
//   - sidecar/act: the only writer to YARN (applier, dry run, validation,
//     rate limit, file store, labels, audit, reconciliation);
//   - sidecar/plan: the plan's value types and BuildPlan (pure);
//   - sidecar/learn: the learners that keep the rate history;
//   - sidecar/report: the HTML and terminal report, Prometheus metrics;
//   - sidecar/leader: leader election through ZooKeeper.
//
// The plumbing holds the decider and its parts by aliases (decided.go:
// sidecar.PSDecider is decide.PSDecider), so cmd/ and testenv/ build it
// through NewDecider as before. What the decision keeps across restarts
// it keeps through the plumbing's files (FirstSeen, LendStore), and the
// HDFS block maps reach it as input locality (InputsReport).
//
// Imports: every room. It must not import YARN's write paths (yarn/rmadmin,
// yarn/csxml) nor call YARN's write APIs: sidecar/act writes
// (rooms_test.go checks each room's rule).
package sidecar
