package sidecar

import "github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"

// The decision lives in sidecar/decide. These names are the ones the
// plumbing and its callers (cmd/, testenv/) hold the decider and its
// parts by; they are aliases, so a sidecar.PSDecider is a
// decide.PSDecider.
type (
	PSDecider        = decide.PSDecider
	PreemptionGuard  = decide.PreemptionGuard
	PreemptionStatus = decide.PreemptionStatus
	PreemptionState  = decide.PreemptionState
	SlotSizer        = decide.SlotSizer
	SlotChoice       = decide.SlotChoice
	ReadCost         = decide.ReadCost
)
