package sidecar

import (
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The decision's view of jobs, rates and queues lives with the decision
// (sidecar/decide); the status board keeps the names.
type (
	JobStatus   = decide.JobStatus
	CDFPoint    = decide.CDFPoint
	RateStatus  = decide.RateStatus
	QueueStatus = decide.QueueStatus
)

// QueuePoint is one queue in one partition at one cycle: its guarantee and
// what it used, both as % of the partition (absolute).
type QueuePoint struct {
	Queue       string  `json:"queue"`
	Partition   string  `json:"partition"`
	Capacity    float64 `json:"capacity"`    // configured, % of parent
	AbsCapacity float64 `json:"absCapacity"` // % of partition
	AbsUsed     float64 `json:"absUsed"`     // % of partition
}

// QueueShare is a queue's running jobs' progress shares summed, against the
// queue's fair share of PS, at one cycle.
type QueueShare struct {
	Queue string  `json:"queue"`
	Jobs  int     `json:"jobs"`
	PS    float64 `json:"ps"`
	Fair  float64 `json:"fair"`
}

// SeenJob is a job the sidecar saw running, from its first to its last
// cycle: the daemon's own record of finished jobs (no baseline). Started
// and Finished are the RM's startedTime and finishedTime (issue 35: timed
// by the cycles that saw it, a job seen in one cycle took 0m); zero when
// the sidecar did not read them, and the report then falls back to the
// cycles' times (within one interval of the real ones).
type SeenJob struct {
	AppID     string     `json:"appId"`
	Name      string     `json:"name"`
	Queue     string     `json:"queue"`
	Class     string     `json:"class"`
	FirstSeen time.Time  `json:"firstSeen"`
	LastSeen  time.Time  `json:"lastSeen"`
	Started   time.Time  `json:"startedTime,omitzero"`
	Finished  time.Time  `json:"finishedTime,omitzero"`
	Deadline  *time.Time `json:"deadline,omitempty"`
}

// Span is the job's start and finish: the RM's times where known, else
// the cycles that saw it.
func (j SeenJob) Span() (start, finish time.Time) {
	start, finish = j.FirstSeen, j.LastSeen
	if !j.Started.IsZero() {
		start = j.Started
	}
	if !j.Finished.IsZero() {
		finish = j.Finished
	}
	return start, finish
}

// HourCount counts plans that changed the configuration in one hour.
type HourCount struct {
	Hour  time.Time `json:"hour"`
	Count int       `json:"count"`
}

// Coverage is how much of the class × node-type rate table is known.
type Coverage struct {
	Classes   int `json:"classes"`
	NodeTypes int `json:"nodeTypes"`
	Known     int `json:"known"`
	Cells     int `json:"cells"`
}

// PSPoint is ΣPS, min PS and each job's PS at one cycle.
type PSPoint struct {
	Time  time.Time `json:"time"`
	SumPS float64   `json:"sumPS"`
	MinPS float64   `json:"minPS"`
	Bound float64   `json:"bound"`
	// UsableBound is the bound over usable slots (progress.Shares).
	UsableBound float64            `json:"usableBound,omitempty"`
	Jobs        map[string]float64 `json:"jobs"` // app id → PS
	// Queues and Shares are each queue's guarantee, use and PS this cycle.
	Queues []QueuePoint `json:"queues,omitempty"`
	Shares []QueueShare `json:"shares,omitempty"`
}

// PlanRecord is one cycle's plan and what became of it.
type PlanRecord struct {
	Time    time.Time     `json:"time"`
	Result  act.Result    `json:"result"`
	Changes []plan.Change `json:"changes"`
	Reasons []string      `json:"reasons"`
	Error   string        `json:"error,omitempty"`
}

// Status is what metrics and reports show: the latest cycle plus a bounded
// history. It is filled by the loop and read concurrently by HTTP handlers.
type Status struct {
	Overview
	Time    time.Time     `json:"time"`
	RM      string        `json:"rm"`
	Mode    act.Mode      `json:"mode"`
	Jobs    []JobStatus   `json:"jobs"`
	Rates   []RateStatus  `json:"rates"`
	Queues  []QueueStatus `json:"queues"`
	SumPS   float64       `json:"sumPS"`
	MinPS   float64       `json:"minPS"`
	BoundPS float64       `json:"boundPS"`
	History []PSPoint     `json:"history"`
	Plans   []PlanRecord  `json:"plans"`
	// Preemption says whether the RM preempts (and who said so) and what
	// the last plan was predicted to cost.
	Preemption *PreemptionStatus `json:"preemption,omitempty"`
	// MutationsLastHour is the scheduler-conf mutations written in the
	// hour before Time (the rate limit's count).
	MutationsLastHour int `json:"mutationsLastHour"`
	// Inputs is the latest cycle's view of running jobs' HDFS inputs,
	// unreadable ones with their error (nil when block maps are off).
	Inputs *InputsReport `json:"inputs,omitempty"`
	// JobViews counts the latest snapshot's running MapReduce apps by how
	// current their job is (fresh, reused, estimated): the running-job AM
	// budget's trade-off (observe's job_budget).
	JobViews map[cluster.JobView]int `json:"jobViews,omitempty"`
	// NodesReadAt is when the latest snapshot's node listing was read:
	// before Time when it was reused (observe's node_listing_max_age), so
	// per-node use is that old; partitions' use is current either way.
	NodesReadAt time.Time `json:"nodesReadAt,omitempty"`
	NodesReused bool      `json:"nodesReused,omitempty"`
	// Unreadable are finished jobs JobHistory listed but could not serve:
	// skipped by calibration, retried on a schedule, then given up.
	Unreadable []calibrate.UnreadableJob `json:"unreadableJobs"`
	// Spark are the running Spark apps as the latest cycle read them:
	// class, stage in progress, tasks, executors per type (nil when
	// spark.enabled is off).
	Spark []sparkobs.AppView `json:"sparkApps,omitempty"`
	// Slot is the planning slot of the latest decision and where it came
	// from (slotsize.go).
	Slot SlotChoice `json:"slot"`
}

// Overview is what the report's header, queue table and "what it bought"
// need beyond one cycle's view: the state now, the admin's guarantees, jobs
// seen finishing and plans per hour. Embedded in Status (its JSON fields
// sit beside Status's own).
type Overview struct {
	Cycle int64 `json:"cycle"`
	// RMVersion is /cluster/info hadoopVersion ("" = not read).
	RMVersion string `json:"rmVersion,omitempty"`
	// ValidationPath is how the last plan was validated before its PUT
	// ("rm" or "local-only", Outcome.Validation); "" = no plan checked yet.
	ValidationPath string `json:"validationPath,omitempty"`
	// PreemptionEnabled is nil when not known.
	PreemptionEnabled *bool `json:"preemptionEnabled,omitempty"`
	// LostWorkSeconds is container-seconds lost to preemption, when measured.
	LostWorkSeconds *float64 `json:"lostWorkSeconds,omitempty"`
	// Labels is the node-label step's last report (nil when the step is
	// off): why it waits, and the last attempt's result and error, kept
	// between attempts so a layout that did not land says why once.
	Labels *LayoutReport `json:"labels,omitempty"`
	// Lend is the replay strategy's last calibration lend write (a node
	// to the default partition or back; its Change.Time says when).
	Lend *LendReport `json:"lend,omitempty"`
	// Warnings are this cycle's: unreadable snapshot parts, decision notes.
	Warnings []string `json:"warnings"`
	// Mutations counts plans that changed the configuration per hour:
	// applied ones only (issue 35: a dry run changes nothing, and counting
	// it made a read-only report show changes that never happened).
	Mutations []HourCount `json:"mutationsPerHour"`
	// DryRunPlans counts the plans a dry run proposed and did not write.
	DryRunPlans int `json:"dryRunPlans"`
	// Admin is the admin's guarantee per queue and partition (% of parent),
	// keyed AdminKey(queue, partition): the first value seen.
	Admin map[string]float64 `json:"adminCapacity,omitempty"`
	// LastRunning is the last cycle at which any job ran.
	LastRunning time.Time `json:"lastRunning,omitempty"`
	// Seen are the jobs seen running (bounded); Finished those no longer
	// running, newest last.
	Seen     map[string]SeenJob `json:"-"`
	Finished []SeenJob          `json:"finished"`
}

// StatusBoard holds the latest Status behind a lock, with bounded history.
type StatusBoard struct {
	mu         sync.RWMutex
	st         Status
	MaxHistory int
}

// Update replaces the latest view and appends to the history.
func (b *StatusBoard) Update(f func(*Status)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.st)
	max := b.MaxHistory
	if max == 0 {
		max = 2880 // a day of 30 s cycles
	}
	if n := len(b.st.History); n > max {
		b.st.History = append([]PSPoint(nil), b.st.History[n-max:]...)
	}
	if n := len(b.st.Plans); n > 200 {
		b.st.Plans = append([]PlanRecord(nil), b.st.Plans[n-200:]...)
	}
	if n := len(b.st.Finished); n > 2000 {
		b.st.Finished = append([]SeenJob(nil), b.st.Finished[n-2000:]...)
	}
	if n := len(b.st.Mutations); n > 168 { // a week of hours
		b.st.Mutations = append([]HourCount(nil), b.st.Mutations[n-168:]...)
	}
}

// Get returns a copy of the latest status (slices shared read-only).
func (b *StatusBoard) Get() Status {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.st
}

// AdminKey keys Status.Admin.
func AdminKey(queue, partition string) string { return queue + "|" + partition }

// Coverage counts the known cells of the rate table.
func (s Status) Coverage() Coverage {
	classes, types := map[string]bool{}, map[string]bool{}
	var c Coverage
	for _, r := range s.Rates {
		classes[r.Class], types[r.NodeType] = true, true
		if r.Known {
			c.Known++
		}
	}
	c.Classes, c.NodeTypes = len(classes), len(types)
	c.Cells = c.Classes * c.NodeTypes
	return c
}
