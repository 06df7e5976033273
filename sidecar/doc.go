// Package sidecar is the control loop: observe → calibrate → decide → act →
// report. It merges the pure decisions of progress, affinity and deadline
// into one Plan, turns the plan into a single scheduler-conf mutation, and
// applies it safely — step limits, hysteresis, floors, local validation
// (with guards Hadoop lacks: unknown queues and labels) and RM-side
// validation, or local-only when the RM cannot validate (validation.go), an
// optimistic version check, verify-after-apply, rollback and an append-only
// audit log. apply.go holds the only code that writes to YARN.
//
// When the RM preempts (ProportionalCapacityPreemptionPolicy), the
// preemption steps (step_preemption.go) predict the containers a plan's
// cuts make the RM kill and the work lost, and bound it per cycle
// (preemption.max_lost_work_per_cycle), or, with preemption.on_purpose,
// let a cut through when the predicted progress-share gain outweighs it.
package sidecar
