// Package act is the sidecar's only writer to YARN. It turns a plan
// (sidecar/plan) into a single scheduler-conf mutation and applies it
// safely: dry run and propose modes that write nothing (dryrun.go,
// proposal.go), the rate limit and flap guard (ratelimit.go,
// ratelimit_flap.go), local and RM-side validation (validation.go), an
// optimistic version check, verify-after-apply and rollback (apply.go),
// node-label grants (labels_apply.go), the file-store path
// (capacity-scheduler.xml + refreshQueues, filestore_write.go,
// anystore.go), the append-only audit log (audit.go) and the reconciliation
// of an interrupted write at start (reconcile.go, landed.go). yarnapi.go
// adapts the yarn client to the Observer the loop reads through and the
// ConfAPI the applier writes through.
//
// Imports: the plan's value types (sidecar/plan), the YARN clients (yarn,
// yarn/schedconf, yarn/csxml, yarn/rmadmin) and leaf packages. It must not
// import the rest of the sidecar (sidecar, sidecar/learn, sidecar/report,
// sidecar/leader): what to write is decided elsewhere, act only writes it
// safely. No other room calls YARN's write APIs (UpdateConf,
// SetAppPriority, the node-label calls, MoveApp, refreshQueues);
// sidecar/rooms_test.go checks both rules.
package act
