// Package sidecar is the daemon's plumbing and, for now, its decision: the
// control loop observe → calibrate → decide → act → report (loop.go), the
// config (config*.go), the one assembly of the decider from the config
// (assemble.go, NewDecider), HA and the state directory (ha.go,
// config_state.go), the admin's baseline (baseline.go), block maps
// (blockmaps.go), the preemption shields' lift and recovery, and the
// status board each cycle records (status.go, record.go).
//
// The rooms by role are sub-packages (go list ./sidecar/...):
//
//   - sidecar/act: the only writer to YARN (applier, dry run, validation,
//     rate limit, file store, labels, audit, reconciliation);
//   - sidecar/plan: the plan's value types and BuildPlan (pure);
//   - sidecar/learn: the learners that keep the rate history;
//   - sidecar/report: the HTML and terminal report, Prometheus metrics;
//   - sidecar/leader: leader election through ZooKeeper.
//
// The decision is a pipeline of small named steps on a snapshot
// (step_pipeline.go wires them: slots → rates → demand → deadline weighting
// → PS plan → hierarchical shares → targets → guarantee bands → mode
// encoding → rack-locality reset → priorities); a new capability is a new
// step. It plans any queue tree (nested parents; percentage, weight or
// absolute mode, written in the tree's own mode) within the admin's
// guarantee bands and hands sidecar/act a plan (sidecar/plan). The steps
// are still in this package (decide.go, step_*.go); they move to their own
// pure room next.
//
// When the RM preempts (ProportionalCapacityPreemptionPolicy), the
// preemption steps (step_preemption.go) predict the containers a plan's
// cuts make the RM kill and the work lost, and bound it per cycle
// (preemption.max_lost_work_per_cycle), or, with preemption.on_purpose,
// let a cut through when the predicted progress-share gain outweighs it.
//
// Imports: every room. It must not import YARN's write paths (yarn/rmadmin,
// yarn/csxml) nor call YARN's write APIs: sidecar/act writes
// (rooms_test.go checks each room's rule).
package sidecar
