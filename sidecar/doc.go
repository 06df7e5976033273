// Package sidecar is the control loop: observe → calibrate → decide → act →
// report. The decision is a pipeline of small named steps on a snapshot
// (step_pipeline.go wires them: slots → rates → demand → deadline weighting
// → PS plan → hierarchical shares → targets → guarantee bands → mode
// encoding → rack-locality reset → priorities); a new capability is a new
// step. It plans any queue tree (nested parents; percentage, weight or
// absolute mode, written in the tree's own mode) within the admin's
// guarantee bands, and turns the plan into a single scheduler-conf
// mutation, applied safely — step limits, hysteresis, floors, a rate limit
// (ratelimit.go), local validation (with guards Hadoop lacks: unknown
// queues and labels) and RM-side validation, or local-only when the RM
// cannot validate (validation.go), an optimistic version check,
// verify-after-apply, rollback and an append-only audit log. apply.go holds
// the only code that writes to YARN.
//
// When the RM preempts (ProportionalCapacityPreemptionPolicy), the
// preemption steps (step_preemption.go) predict the containers a plan's
// cuts make the RM kill and the work lost, and bound it per cycle
// (preemption.max_lost_work_per_cycle), or, with preemption.on_purpose,
// let a cut through when the predicted progress-share gain outweighs it.
package sidecar
