// Package decide is the deciding room: the decision the daemon takes each
// cycle, pure — no I/O, no clock. A snapshot and the live scheduler
// configuration go in (PSDecider.Decide); queue targets, priorities, an
// optional calibration lend and what the decision saw come out (Decision),
// for sidecar/plan to build a plan from and sidecar/act to write.
//
// The decision is a pipeline of small named steps on one state
// (decideState; step_pipeline.go wires them: slots → rates → demand →
// deadline weighting → PS plan → hierarchical shares → targets → guarantee
// bands → mode encoding → rack-locality reset → priorities); a new
// capability is a new step, with its contract (step_contracts.go). It
// plans any queue tree (nested parents; percentage, weight or absolute
// mode, written in the tree's own mode) within the admin's guarantee
// bands. The preemption steps (step_preemption.go, step_shield.go)
// predict the containers a plan's cuts make the RM kill and bound the
// work lost per cycle.
//
// Time is the snapshot's (the RM's clock), never the machine's. What the
// decision remembers across cycles lives in PSDecider; what must survive
// a restart goes through interfaces the plumbing implements with files
// (SeenStore: sidecar.FirstSeen; LendKeeper: sidecar.LendStore), and the
// HDFS input locality arrives as InputLocality (sidecar.InputsReport).
//
// Imports: calibrate, progress, deadline, deadline/replay, affinity,
// sparkobs (types), yarn/cluster, yarn/schedconf, sidecar/plan, and
// sidecar/act for value types and checks only (act.LabelChange carries
// yarn.Label, so it cannot live in sidecar/plan; the rate-limit and lend
// rules are act's, so the decision plans what act will let through). It
// must not import the plumbing (sidecar), sidecar/learn, sidecar/report,
// sidecar/leader, the YARN or HDFS clients, os or net, nor read the clock
// (rooms_test.go checks it).
package decide
