// Package storeparity holds the test that the sidecar plans the same on a
// file-store RM (the configuration rebuilt from /ws/v1/cluster/scheduler)
// as on a mutable store (scheduler-conf), on every shipped scenario (issue
// 34). It is a package of its own so that its minutes do not count against
// testenv/experiment's per-package test timeout.
package storeparity
