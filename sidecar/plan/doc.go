// Package plan holds the value types the decision produces and the
// applier consumes: QueueTarget (a queue's capacities, bands and encoding
// per partition), Plan and Change (the scheduler-conf mutation and why
// each property moves), PriorityChange and GlobalChange, CalibrationExposure,
// and BuildPlan, which turns targets into a Plan under SafetyRules (step
// limits, floors, hysteresis) written in each sibling group's own capacity
// mode (plan_encode.go).
//
// It is pure: values and arithmetic on a scheduler configuration
// (yarn/schedconf) and the standard library, no I/O and no clock (times
// arrive as arguments). It must not import any other sidecar room, the
// YARN or HDFS clients, net/http or os (sidecar/rooms_test.go checks it).
package plan
