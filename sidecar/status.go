package sidecar

import (
	"sync"
	"time"
)

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
}

// PSPoint is ΣPS, min PS and each job's PS at one cycle.
type PSPoint struct {
	Time  time.Time          `json:"time"`
	SumPS float64            `json:"sumPS"`
	MinPS float64            `json:"minPS"`
	Bound float64            `json:"bound"`
	Jobs  map[string]float64 `json:"jobs"` // app id → PS
}

// PlanRecord is one cycle's plan and what became of it.
type PlanRecord struct {
	Time    time.Time `json:"time"`
	Result  Result    `json:"result"`
	Changes []Change  `json:"changes"`
	Reasons []string  `json:"reasons"`
	Error   string    `json:"error,omitempty"`
}

// Status is what metrics and reports show: the latest cycle plus a bounded
// history. It is filled by the loop and read concurrently by HTTP handlers.
type Status struct {
	Time    time.Time     `json:"time"`
	RM      string        `json:"rm"`
	Mode    Mode          `json:"mode"`
	Jobs    []JobStatus   `json:"jobs"`
	Rates   []RateStatus  `json:"rates"`
	Queues  []QueueStatus `json:"queues"`
	SumPS   float64       `json:"sumPS"`
	MinPS   float64       `json:"minPS"`
	BoundPS float64       `json:"boundPS"`
	History []PSPoint     `json:"history"`
	Plans   []PlanRecord  `json:"plans"`
	// MutationsLastHour is the scheduler-conf mutations written in the
	// hour before Time (the rate limit's count).
	MutationsLastHour int `json:"mutationsLastHour"`
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
}

// Get returns a copy of the latest status (slices shared read-only).
func (b *StatusBoard) Get() Status {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.st
}
