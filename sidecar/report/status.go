package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
)

// Header is the state now, as the page's header and `yarn-sidecar status`
// print it. Unknowns stay unknown (nil or ""), never a made-up default.
type Header struct {
	Time              time.Time        `json:"time"`
	Cycle             int64            `json:"cycle"`
	Mode              act.Mode         `json:"mode"`
	PreemptionEnabled *bool            `json:"preemptionEnabled,omitempty"` // absent when not known
	RM                string           `json:"rm"`
	RMVersion         string           `json:"rmVersion"`
	ValidationPath    string           `json:"validationPath"`
	Coverage          sidecar.Coverage `json:"calibrationCoverage"`
	RunningJobs       int              `json:"runningJobs"`
	// Containers is what the running jobs hold, summed over node types.
	Containers int `json:"containers"`
	// SumPS and MinPS are absent when nothing runs (not 0: there is no share).
	SumPS       *float64  `json:"sumPS,omitempty"`
	MinPS       *float64  `json:"minPS,omitempty"`
	BoundPS     *float64  `json:"boundPS,omitempty"`
	LastRunning time.Time `json:"lastRunning,omitempty"`
	// NodesReadAt is when the node listing the cycle used was read
	// (earlier than Time when reused); absent when not known.
	NodesReadAt *time.Time `json:"nodesReadAt,omitempty"`
	NodesReused bool       `json:"nodesReused,omitempty"`
	LostWork    *float64   `json:"lostWorkSeconds,omitempty"`
	Warnings    []string   `json:"warnings"`
	// ShieldedQueues are the queues whose disable_preemption=true the
	// sidecar set (its preemption shield) and YARN holds; [] when none.
	ShieldedQueues []string `json:"shieldedQueues"`
	// ShieldAges is how long each of those shields has been held, in
	// seconds at the status's time (from when it was set, or the audit
	// record's time after a restart).
	ShieldAges map[string]float64 `json:"shieldAgeSeconds,omitempty"`
	// UnreadableJobs are finished jobs JobHistory listed but could not
	// serve, left out of calibration: retried, or given up; [] when none.
	UnreadableJobs []calibrate.UnreadableJob `json:"unreadableJobs"`
	// Slot is the container the decision counted in (absent before one).
	Slot *sidecar.SlotChoice `json:"slot,omitempty"`
}

// HeaderOf derives the header from a status.
func HeaderOf(st sidecar.Status) Header {
	h := Header{Time: st.Time, Cycle: st.Cycle, Mode: st.Mode, PreemptionEnabled: st.PreemptionEnabled, RM: st.RM,
		RMVersion: st.RMVersion, ValidationPath: st.ValidationPath, Coverage: st.Coverage(), RunningJobs: len(st.Jobs),
		LastRunning: st.LastRunning, LostWork: st.LostWorkSeconds, Warnings: []string{}, ShieldedQueues: []string{},
		UnreadableJobs: append([]calibrate.UnreadableJob{}, st.Unreadable...)}
	if st.Slot.Slot.MemoryMB > 0 {
		s := st.Slot
		h.Slot = &s
	}
	if p := st.Preemption; p != nil {
		h.ShieldedQueues = append(h.ShieldedQueues, p.Shielded...)
		for q, since := range p.ShieldSince {
			if h.ShieldAges == nil {
				h.ShieldAges = map[string]float64{}
			}
			h.ShieldAges[q] = math.Max(0, st.Time.Sub(since).Seconds())
		}
	}
	if !st.NodesReadAt.IsZero() {
		t := st.NodesReadAt
		h.NodesReadAt, h.NodesReused = &t, st.NodesReused
	}
	for _, j := range st.Jobs {
		for _, n := range j.Containers {
			h.Containers += n
		}
	}
	if len(st.Jobs) > 0 {
		s, m, b := st.SumPS, st.MinPS, st.BoundPS
		h.SumPS, h.MinPS, h.BoundPS = &s, &m, &b
	}
	h.Warnings = append(h.Warnings, st.Warnings...)
	if strings.EqualFold(st.ValidationPath, "local-only") {
		h.Warnings = append(h.Warnings, "RM-side validation unavailable: plans are checked locally only before they are applied")
	}
	if l := st.Labels; l != nil && l.LastAttempt != nil && l.LastAttempt.Error != "" {
		a := l.LastAttempt
		h.Warnings = append(h.Warnings, fmt.Sprintf("node-label layout %s at %s, not retried before labels.min_interval: %s",
			a.Result, a.Time.UTC().Format(time.RFC3339), a.Error))
	}
	for _, u := range st.Unreadable {
		h.Warnings = append(h.Warnings, UnreadableText(u))
	}
	if c := h.Coverage; c.Cells > 0 && c.Known < c.Cells {
		h.Warnings = append(h.Warnings, fmt.Sprintf("calibration incomplete: %d of %d class × node-type rates unknown (taken as 1 until measured)", c.Cells-c.Known, c.Cells))
	}
	return h
}

// QueueRow is one queue in the status table and JSON: its guarantee per
// partition (the admin's value → the value now), use, and its jobs' PS
// against its fair share.
type QueueRow struct {
	Queue      string         `json:"queue"`
	Partitions []PartitionRow `json:"partitions"`
	Jobs       int            `json:"jobs"`
	PS         float64        `json:"progressShare"`
	FairPS     float64        `json:"fairShare"`
	JobsAtRisk int            `json:"jobsAtRisk"`
	Pinned     bool           `json:"pinned,omitempty"`
}

// PartitionRow is one queue's guarantee and use in one partition.
type PartitionRow struct {
	Partition     string   `json:"partition"`
	AdminCapacity *float64 `json:"adminCapacity,omitempty"` // % of parent; absent when not known
	Capacity      float64  `json:"capacity"`                // % of parent, now
	AbsCapacity   float64  `json:"absCapacity"`             // % of partition
	AbsUsed       float64  `json:"absUsed"`                 // % of partition
	// RunMin and RunMax are the lowest and highest guarantee (% of parent)
	// over the recorded history; nil without history.
	RunMin *float64 `json:"runMin,omitempty"`
	RunMax *float64 `json:"runMax,omitempty"`
}

// StatusDoc is `yarn-sidecar status -o json`: exactly one document, no
// null in it (empty collections are [], unknowns are absent).
type StatusDoc struct {
	Header Header     `json:"header"`
	Queues []QueueRow `json:"queues"`
	// SparkApps are the running Spark apps the last cycle read: class,
	// stage in progress, tasks, executors per type ([] when none).
	SparkApps []sparkobs.AppView `json:"sparkApps"`
}

// StatusOf builds the status document; collections are empty, never nil.
func StatusOf(st sidecar.Status) StatusDoc {
	doc := StatusDoc{Header: HeaderOf(st), Queues: []QueueRow{}, SparkApps: sparkApps(st)}
	type qp struct{ q, p string }
	lo, hi := map[qp]float64{}, map[qp]float64{}
	for _, h := range st.History {
		for _, q := range h.Queues {
			k := qp{q.Queue, q.Partition}
			if v, ok := lo[k]; !ok || q.Capacity < v {
				lo[k] = q.Capacity
			}
			if v, ok := hi[k]; !ok || q.Capacity > v {
				hi[k] = q.Capacity
			}
		}
	}
	rows := map[string]*QueueRow{}
	row := func(q string) *QueueRow {
		r := rows[q]
		if r == nil {
			r = &QueueRow{Queue: q, Partitions: []PartitionRow{}}
			rows[q] = r
		}
		return r
	}
	for _, q := range st.Queues {
		r := row(q.Queue)
		r.Pinned = r.Pinned || q.Pinned
		if q.JobsAtRisk > r.JobsAtRisk {
			r.JobsAtRisk = q.JobsAtRisk
		}
		if q.Capacity == 0 && q.AbsUsed == 0 && (q.AdminCapacity == nil || *q.AdminCapacity == 0) {
			continue // a partition the queue neither may use nor uses
		}
		pr := PartitionRow{Partition: partitionName(q.Partition), AdminCapacity: q.AdminCapacity,
			Capacity: q.Capacity, AbsCapacity: q.AbsCapacity, AbsUsed: q.AbsUsed}
		if v, ok := lo[qp{q.Queue, q.Partition}]; ok {
			x, y := v, hi[qp{q.Queue, q.Partition}]
			pr.RunMin, pr.RunMax = &x, &y
		}
		r.Partitions = append(r.Partitions, pr)
	}
	for _, j := range st.Jobs {
		r := row(j.Queue)
		r.Jobs++
		r.PS += j.PS
		r.FairPS += j.FairShare
	}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		r := rows[name]
		rank := func(p string) string { // default first, then by name
			if p == "default" {
				return ""
			}
			return p
		}
		sort.SliceStable(r.Partitions, func(i, j int) bool { return rank(r.Partitions[i].Partition) < rank(r.Partitions[j].Partition) })
		doc.Queues = append(doc.Queues, *r)
	}
	return doc
}

// WriteStatusJSON prints the status document as one indented JSON value.
func WriteStatusJSON(w io.Writer, st sidecar.Status) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(StatusOf(st))
}

// WriteStatus prints the header and the per-queue table, one line per
// queue and partition; the queue's jobs, PS and at-risk count on its first
// line, the way `kubectl top` lists what a cluster runs now.
func WriteStatus(w io.Writer, st sidecar.Status) error {
	doc := StatusOf(st)
	h := doc.Header
	if h.Time.IsZero() {
		_, err := fmt.Fprintln(w, "no cycle has run yet: nothing observed")
		return err
	}
	fmt.Fprintf(w, "cycle %d at %s · mode %s · preemption %s · RM %s (Hadoop %s) · validation %s\n", h.Cycle, h.Time.UTC().Format("2006-01-02 15:04:05Z"),
		orUnknown(string(h.Mode)), onOff(h.PreemptionEnabled), orUnknown(h.RM), orUnknown(h.RMVersion), orUnknown(h.ValidationPath))
	if r := h.NodesReadAt; r != nil {
		if h.NodesReused {
			fmt.Fprintf(w, "nodes: listing read at %s (%s before the cycle, reused: cluster metrics unchanged)\n", r.UTC().Format("15:04:05Z"), h.Time.Sub(*r).Round(time.Second))
		} else {
			fmt.Fprintln(w, "nodes: listing read this cycle")
		}
	}
	if len(h.ShieldedQueues) > 0 {
		held := make([]string, 0, len(h.ShieldedQueues))
		for _, q := range h.ShieldedQueues {
			if age, ok := h.ShieldAges[q]; ok {
				q += " (held " + (time.Duration(age) * time.Second).String() + ")"
			}
			held = append(held, q)
		}
		fmt.Fprintf(w, "preemption shield: the sidecar set disable_preemption=true on %d queue(s): %s (it covers every partition of each; lifted when it kills nothing, and at a clean stop; see the audit log)\n", len(held), strings.Join(held, ", "))
	}
	c := h.Coverage
	fmt.Fprintf(w, "calibration: %d of %d rates known (%d classes × %d node types)\n", c.Known, c.Cells, c.Classes, c.NodeTypes)
	if s := h.Slot; s != nil {
		what := fmt.Sprintf("%d MB, %d vcores", s.Slot.MemoryMB, s.Slot.VCores)
		if s.Slot.VCores <= 0 {
			what = fmt.Sprintf("%d MB (memory only)", s.Slot.MemoryMB)
		}
		fmt.Fprintf(w, "planning slot: %s, from %s\n", what, s.Source)
	}
	if h.RunningJobs == 0 {
		last := "none seen"
		if !h.LastRunning.IsZero() {
			last = "last at " + h.LastRunning.UTC().Format("15:04:05Z")
		}
		fmt.Fprintf(w, "no jobs running (%s): no progress shares to show\n", last)
	} else {
		fmt.Fprintf(w, "%d jobs running, %d containers · ΣPS %s (bound %.2f) · min PS %s\n", h.RunningJobs, h.Containers, psText(*h.SumPS), *h.BoundPS, psText(*h.MinPS))
	}
	for _, wn := range h.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "QUEUE\tPARTITION\tGUARANTEE (ADMIN → NOW)\tUSED\tJOBS\tPS / FAIR\tAT RISK")
	for _, q := range doc.Queues {
		jobs, ps, risk := fmt.Sprint(q.Jobs), "idle", fmt.Sprint(q.JobsAtRisk)
		if q.Jobs > 0 {
			ps = psText(q.PS) + " / " + psText(q.FairPS)
		}
		name := q.Queue
		if q.Pinned {
			name += " (pinned)"
		}
		if len(q.Partitions) == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t%s\t%s\t%s\n", name, jobs, ps, risk)
			continue
		}
		for i, p := range q.Partitions {
			guar := fmt.Sprintf("%s → %s%%", admin(p.AdminCapacity), trimPct(p.Capacity))
			if i > 0 {
				name, jobs, ps, risk = "", "", "", ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, p.Partition, guar, usedText(p.AbsUsed), jobs, ps, risk)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeSpark(w, doc.SparkApps)
}

// psText prints a progress share; below 0.01 it says so rather than
// printing a zero (a job holding one container of thousands of slots).
func psText(x float64) string {
	if x > 0 && x < 0.01 {
		return "<0.01"
	}
	return fmt.Sprintf("%.2f", x)
}

// usedText prints a use in % of the partition; a sliver is not 0%.
func usedText(x float64) string {
	if x > 0 && x < 0.05 {
		return "<0.1%"
	}
	return fmt.Sprintf("%.1f%%", x)
}

func admin(p *float64) string {
	if p == nil {
		return "?"
	}
	return trimPct(*p) + "%"
}

func trimPct(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", x), "0"), ".")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func onOff(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "on"
	}
	return "off"
}

// UnreadableText says what became of a job JobHistory could not serve.
func UnreadableText(u calibrate.UnreadableJob) string {
	what := fmt.Sprintf("JobHistory cannot serve %s (%s, finished %s): not learned; ", u.JobID, orUnknown(u.Queue), u.Finished.UTC().Format("2006-01-02 15:04Z"))
	if u.GaveUp {
		return what + fmt.Sprintf("given up after %d tries, last error: %s", u.Tries, u.LastError)
	}
	return what + fmt.Sprintf("tried %d times, next try at %s; error: %s", u.Tries, u.NextTry.UTC().Format("2006-01-02 15:04Z"), u.LastError)
}
