package decide

import (
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// Decision is what the decide step returns for one snapshot: queue targets
// for BuildPlan, app priorities, and what it predicted (for reports).
type Decision struct {
	// Lend is a node-label change the decision asks for (the replay
	// strategy's calibration lend); written only where LabelAPI is set.
	Lend       act.LabelChange
	Targets    map[string]plan.QueueTarget
	Priorities []plan.PriorityChange
	Predicted  map[string]float64
	Notes      []string
	// What the decision saw, for metrics and reports.
	// Slot is the planning slot the decision counted containers in.
	Slot    SlotChoice
	Jobs    []JobStatus
	Rates   []RateStatus
	Queues  []QueueStatus
	SumPS   float64
	MinPS   float64
	BoundPS float64
	// UsableBoundPS is the ΣPS bound over slots a task can take (each
	// job's task size, AM containers' resources taken off).
	UsableBoundPS float64
	// Deadlines is the per-queue deadline report the decision used.
	Deadlines []deadline.QueueReport
	// Globals are scheduler-wide properties the plan needs.
	Globals []plan.GlobalChange
	// Urgent are queues raised for a deadline at risk (queue → reason).
	Urgent map[string]string
	// SetBy names, per written value (provenanceKey: queue and property),
	// the decision step that last set it (provenance.go).
	SetBy map[string]string
	// Admin names, under the same keys, the admin's value of each property
	// a plan may write, as first seen (adminValues).
	Admin map[string]string
	// Calibrations are the queues sent to an unmeasured partition and the
	// containers each exposes there (psPlanStep).
	Calibrations []plan.CalibrationExposure
	// Restores are queues raised back toward their guarantee or for their
	// goal jobs (queue → reason; restoresStep).
	Restores map[string]string
	// Repairs are the running classes the live configuration is predicted
	// to slow by more than the repair margin (DefaultRepairMarginPercent)
	// against the admin's, and the plan does not (harmStep).
	Repairs []string
	// Preemption is what the preemption step saw and did (nil: no guard).
	Preemption *PreemptionStatus
}

// JobStatus is one running (or just finished) job as the sidecar sees it:
// its progress share, rates and, when it has a goal, its deadline outlook.
type JobStatus struct {
	AppID      string         `json:"appId"`
	Name       string         `json:"name"`
	Queue      string         `json:"queue"`
	Class      string         `json:"class"`
	PS         float64        `json:"progressShare"` // eq. 4.1
	FairShare  float64        `json:"fairShare"`     // weighted fair PS target
	Containers map[string]int `json:"containersByNodeType,omitempty"`
	Progress   float64        `json:"progress"` // 0..1
	Deadline   *time.Time     `json:"deadline,omitempty"`
	P50        *time.Time     `json:"p50,omitempty"`
	P90        *time.Time     `json:"p90,omitempty"`
	PMeet      *float64       `json:"pMeet,omitempty"`
	Needed     int            `json:"containersNeeded90,omitempty"`
	Verdict    string         `json:"verdict,omitempty"`
	// CDF of the predicted completion time: (time, probability) points.
	CDF []CDFPoint `json:"cdf,omitempty"`
}

// CDFPoint is one point of a completion-time CDF.
type CDFPoint struct {
	T time.Time `json:"t"`
	P float64   `json:"p"`
}

// RateStatus is one cell of the CR table.
type RateStatus struct {
	Class    string  `json:"class"`
	NodeType string  `json:"nodeType"`
	Ratio    float64 `json:"ratio"` // relative to the class's reference type
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Samples  int     `json:"samples"`
	Known    bool    `json:"known"`
}

// QueueStatus is a queue's capacity and use in one partition.
type QueueStatus struct {
	Queue       string  `json:"queue"`
	Partition   string  `json:"partition"`
	Capacity    float64 `json:"capacity"`    // % of parent, configured
	AbsCapacity float64 `json:"absCapacity"` // % of partition
	AbsUsed     float64 `json:"absUsed"`     // % of partition
	Containers  int     `json:"containers"`
	JobsAtRisk  int     `json:"jobsAtRisk"`
	CapNeeded   float64 `json:"capacityNeededPct,omitempty"` // for its deadlines
	// AdminCapacity is the guarantee the admin configured (% of parent):
	// the first value the sidecar saw, from the audit log's first "before"
	// or the first snapshot. Nil when not known.
	AdminCapacity *float64 `json:"adminCapacity,omitempty"`
	// Band is the range the sidecar may move the guarantee in, when the
	// decision reports one (% of parent); Pinned queues are never moved.
	BandLow  *float64 `json:"bandLow,omitempty"`
	BandHigh *float64 `json:"bandHigh,omitempty"`
	Pinned   bool     `json:"pinned,omitempty"`
}
