// Package sidecar is the control loop: observe → calibrate → decide → act →
// report. It merges the pure decisions of progress, affinity and deadline
// into one Plan, turns the plan into a single scheduler-conf mutation, and
// applies it safely — step limits, hysteresis, floors, local validation
// (with guards Hadoop lacks: unknown queues and labels) and RM-side
// validation, or local-only when the RM cannot validate (validation.go), an
// optimistic version check, verify-after-apply, rollback and an append-only
// audit log. apply.go holds the only code that writes to YARN.
package sidecar
