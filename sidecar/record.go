package sidecar

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// RecordCycle folds one cycle's report into the status board: the latest
// jobs, rates and queues, a point of the PS history, and the plan record;
// recordOverview adds what the report's header and queue charts need.
func RecordCycle(b *StatusBoard, rep CycleReport) {
	b.Update(func(st *Status) {
		if rep.Snapshot.Time.IsZero() {
			return
		}
		d := rep.Decision
		st.Time, st.RM = rep.Snapshot.Time, rep.Snapshot.RM
		st.Jobs, st.Rates, st.Queues = d.Jobs, d.Rates, d.Queues
		st.SumPS, st.MinPS, st.BoundPS = d.SumPS, d.MinPS, d.BoundPS
		st.Preemption = rep.Preemption
		if rep.Layout != nil {
			st.Labels = rep.Layout
		}
		if rep.Lend != nil {
			st.Lend = rep.Lend
		}
		if p := rep.Preemption; p != nil {
			on := p.On
			st.PreemptionEnabled = &on
		}
		st.MutationsLastHour = rep.Outcome.MutationsLastHour
		st.Inputs = rep.Inputs
		st.Unreadable = append([]calibrate.UnreadableJob{}, rep.Unreadable...)
		st.Spark = rep.Spark
		st.Slot = d.Slot
		st.JobViews = jobViews(rep.Snapshot)
		st.NodesReadAt, st.NodesReused = rep.Snapshot.NodesReadAt, rep.Snapshot.NodesReused
		pt := PSPoint{Time: rep.Snapshot.Time, SumPS: d.SumPS, MinPS: d.MinPS, Bound: d.BoundPS, UsableBound: d.UsableBoundPS, Jobs: map[string]float64{}}
		for _, j := range d.Jobs {
			pt.Jobs[j.AppID] = j.PS
		}
		recordOverview(st, rep, &pt)
		st.History = append(st.History, pt)
		if rep.Plan != nil && !rep.Plan.Empty() {
			pr := PlanRecord{Time: rep.Snapshot.Time, Result: rep.Outcome.Result, Changes: rep.Plan.Changes, Reasons: rep.Plan.Reasons}
			if rep.Err != nil {
				pr.Error = rep.Err.Error()
			}
			st.Plans = append(st.Plans, pr)
			countMutation(st, pr)
		}
	})
}

// recordOverview records the cycle number, mode, jobs seen finishing, the
// admin's guarantees (the first value seen: a plan's "from" is the live
// value before the sidecar touched it; SeedAdmin loads the audit log's
// first "before" on restart, so it wins over both), each queue's guarantee,
// use and PS against its fair share on the history point, and the warnings.
func recordOverview(st *Status, rep CycleReport, pt *PSPoint) {
	d := rep.Decision
	now := rep.Snapshot.Time
	st.Cycle = rep.Cycle
	if st.Mode == "" {
		st.Mode = modeOf(rep.Outcome.Result)
	}
	if len(d.Jobs) > 0 {
		st.LastRunning = now
	}
	st.Seen, st.Finished = trackJobs(st.Seen, st.Finished, d.Jobs, now, startedTimes(rep.Snapshot))
	st.Seen, st.Finished = timeFinished(st.Seen, st.Finished, rep.Finished)
	if v := rep.Outcome.Validation; v != "" { // the last plan's path; kept through cycles without one
		st.ValidationPath = string(v)
	}

	admin := st.Admin
	copied := false
	remember := func(key string, v float64) {
		if _, ok := admin[key]; ok {
			return
		}
		if !copied { // copy on write: readers hold the old map
			m := make(map[string]float64, len(admin)+1)
			for k, x := range admin {
				m[k] = x
			}
			admin, copied = m, true
		}
		admin[key] = v
	}
	if rep.Plan != nil {
		for _, c := range rep.Plan.Changes {
			if p, ok := guaranteePartition(c.Property); ok {
				if v, err := strconv.ParseFloat(strings.TrimSpace(c.From), 64); err == nil {
					remember(AdminKey(c.Queue, p), v)
				}
			}
		}
	}
	for _, q := range d.Queues {
		remember(AdminKey(q.Queue, q.Partition), q.Capacity)
	}
	st.Admin = admin

	shares := map[string]*QueueShare{}
	atRisk := map[string]int{}
	for _, j := range d.Jobs {
		s := shares[j.Queue]
		if s == nil {
			s = &QueueShare{Queue: j.Queue}
			shares[j.Queue] = s
		}
		s.Jobs++
		s.PS += j.PS
		s.Fair += j.FairShare
		if j.Verdict != "" && j.Verdict != "on track" && j.Deadline != nil {
			atRisk[j.Queue]++
		}
	}
	for _, s := range shares {
		pt.Shares = append(pt.Shares, *s)
	}
	sort.Slice(pt.Shares, func(i, j int) bool { return pt.Shares[i].Queue < pt.Shares[j].Queue })

	st.Queues = make([]QueueStatus, 0, len(d.Queues))
	for _, q := range d.Queues {
		if v, ok := admin[AdminKey(q.Queue, q.Partition)]; ok && q.AdminCapacity == nil {
			x := v
			q.AdminCapacity = &x
		}
		if q.JobsAtRisk == 0 {
			q.JobsAtRisk = atRisk[q.Queue]
		}
		st.Queues = append(st.Queues, q)
		pt.Queues = append(pt.Queues, QueuePoint{Queue: q.Queue, Partition: q.Partition, Capacity: q.Capacity, AbsCapacity: q.AbsCapacity, AbsUsed: q.AbsUsed})
	}
	st.Warnings = cycleWarnings(rep, st.Queues)
}

// countMutation counts a plan that changed the configuration in its hour;
// a dry run's plan changed nothing and is counted apart.
func countMutation(st *Status, pr PlanRecord) {
	switch {
	case len(pr.Changes) == 0:
	case pr.Result == act.ResultApplied:
		st.Mutations = countHour(st.Mutations, pr.Time)
	case pr.Result == act.ResultDryRun:
		st.DryRunPlans++
	}
}

// trackJobs updates the jobs seen running: new ones start at now (and at
// the RM's startedTime, from started), running ones move their last
// sighting, and those gone since the last cycle are finished. It builds
// new values (readers hold the old ones).
func trackJobs(seen map[string]SeenJob, finished []SeenJob, jobs []JobStatus, now time.Time, started map[string]time.Time) (map[string]SeenJob, []SeenJob) {
	next := make(map[string]SeenJob, len(jobs))
	for _, j := range jobs {
		sj, ok := seen[j.AppID]
		if !ok {
			sj = SeenJob{AppID: j.AppID, Name: j.Name, Queue: j.Queue, Class: j.Class, FirstSeen: now}
		}
		if t := started[j.AppID]; sj.Started.IsZero() && !t.IsZero() {
			sj.Started = t
		}
		sj.LastSeen = now
		if j.Deadline != nil {
			d := *j.Deadline
			sj.Deadline = &d
		}
		next[j.AppID] = sj
	}
	var gone []SeenJob
	for id, sj := range seen {
		if _, ok := next[id]; !ok {
			gone = append(gone, sj)
		}
	}
	if len(gone) == 0 {
		return next, finished
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].AppID < gone[j].AppID })
	return next, append(append([]SeenJob(nil), finished...), gone...)
}

// startedTimes is each app's RM startedTime in the snapshot.
func startedTimes(snap cluster.Snapshot) map[string]time.Time {
	out := make(map[string]time.Time, len(snap.Apps))
	for _, a := range snap.Apps {
		if !a.StartedTime.IsZero() {
			out[a.ID] = a.StartedTime
		}
	}
	return out
}

// timeFinished gives the jobs the learner read as finished YARN's start
// and finish times, whether the sidecar still counts them running (the
// learner read them after this cycle's observe) or already finished. New
// values only where something changes (readers hold the old ones).
func timeFinished(seen map[string]SeenJob, finished []SeenJob, fin []learn.FinishedJob) (map[string]SeenJob, []SeenJob) {
	if len(fin) == 0 {
		return seen, finished
	}
	byID := make(map[string]learn.FinishedJob, len(fin))
	for _, f := range fin {
		byID[f.AppID] = f
	}
	stamp := func(sj SeenJob) (SeenJob, bool) {
		f, ok := byID[sj.AppID]
		if !ok || f.Finished.IsZero() || (sj.Finished.Equal(f.Finished) && (f.Started.IsZero() || sj.Started.Equal(f.Started))) {
			return sj, false
		}
		sj.Finished = f.Finished
		if !f.Started.IsZero() {
			sj.Started = f.Started
		}
		return sj, true
	}
	var nextSeen map[string]SeenJob
	for id, sj := range seen {
		if s, ok := stamp(sj); ok {
			if nextSeen == nil {
				nextSeen = maps.Clone(seen)
			}
			nextSeen[id] = s
		}
	}
	if nextSeen != nil {
		seen = nextSeen
	}
	var nextFin []SeenJob
	for i, sj := range finished {
		if s, ok := stamp(sj); ok {
			if nextFin == nil {
				nextFin = slices.Clone(finished)
			}
			nextFin[i] = s
		}
	}
	if nextFin != nil {
		finished = nextFin
	}
	return seen, finished
}

// SeedAdmin records the admin's guarantees from the audit log: for each
// queue capacity property, the "before" of the first entry that changed it
// is what the admin had configured. Call it before the first cycle.
func SeedAdmin(b *StatusBoard, entries []act.AuditEntry) {
	b.Update(func(st *Status) {
		m := make(map[string]float64, len(st.Admin))
		for k, v := range st.Admin {
			m[k] = v
		}
		for _, e := range entries {
			for key, before := range e.Before {
				q, p, ok := splitCapacityKey(key)
				if !ok {
					continue
				}
				v, err := strconv.ParseFloat(strings.TrimSpace(before), 64)
				if err != nil {
					continue
				}
				if _, seen := m[AdminKey(q, p)]; !seen {
					m[AdminKey(q, p)] = v
				}
			}
			if e.Result == act.ResultApplied && len(e.After) > 0 {
				st.Mutations = countHour(st.Mutations, e.Time)
			}
		}
		st.Admin = m
	})
}

// MarkPinned marks the queues the config pins (observed, never changed) on
// the latest status, with a warning each so the header says why the
// sidecar leaves them alone.
func MarkPinned(b *StatusBoard, queues map[string]QueueConfig) {
	b.Update(func(st *Status) {
		qs := make([]QueueStatus, len(st.Queues)) // readers hold the old slice
		copy(qs, st.Queues)
		warned := map[string]bool{}
		for i := range qs {
			if !queues[qs[i].Queue].Pinned {
				continue
			}
			qs[i].Pinned = true
			if !warned[qs[i].Queue] {
				warned[qs[i].Queue] = true
				st.Warnings = append(append([]string(nil), st.Warnings...), fmt.Sprintf("queue %s is pinned: the sidecar leaves it as the admin set it", qs[i].Queue))
			}
		}
		st.Queues = qs
	})
}

// RecordRM records what the RM says about itself (/cluster/info).
func RecordRM(b *StatusBoard, hadoopVersion string) {
	b.Update(func(st *Status) { st.RMVersion = hadoopVersion })
}

// guaranteePartition maps a queue-relative property to the partition whose
// guarantee it sets: "capacity" → "", "accessible-node-labels.gpu.capacity"
// → "gpu".
func guaranteePartition(prop string) (string, bool) {
	if prop == "capacity" {
		return "", true
	}
	if p, ok := strings.CutPrefix(prop, "accessible-node-labels."); ok {
		if label, ok := strings.CutSuffix(p, ".capacity"); ok && !strings.HasSuffix(label, ".maximum") {
			return label, true
		}
	}
	return "", false
}

// splitCapacityKey splits a full property name
// (yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity) into
// queue and partition.
func splitCapacityKey(key string) (queue, partition string, ok bool) {
	rest, found := strings.CutPrefix(key, "yarn.scheduler.capacity.")
	if !found {
		return "", "", false
	}
	if i := strings.Index(rest, ".accessible-node-labels."); i >= 0 {
		p, ok := guaranteePartition(rest[i+1:])
		return rest[:i], p, ok
	}
	if q, found := strings.CutSuffix(rest, ".capacity"); found && !strings.HasSuffix(q, ".maximum") {
		return q, "", true
	}
	return "", "", false
}

func countHour(hs []HourCount, t time.Time) []HourCount {
	h := t.UTC().Truncate(time.Hour)
	if n := len(hs); n > 0 && hs[n-1].Hour.Equal(h) {
		out := append([]HourCount(nil), hs...) // readers hold the old slice
		out[n-1].Count++
		return out
	}
	return append(append([]HourCount(nil), hs...), HourCount{Hour: h, Count: 1})
}

// modeOf infers the mode from an outcome when the caller did not set it.
func modeOf(r act.Result) act.Mode {
	switch r {
	case act.ResultDryRun:
		return act.ModeDryRun
	case act.ResultApplied, act.ResultRolledBack, act.ResultVersionMoved:
		return act.ModeApply
	}
	return ""
}

// cycleWarnings are what the header warns about this cycle.
func cycleWarnings(rep CycleReport, queues []QueueStatus) []string {
	out := []string{}
	for _, e := range rep.Snapshot.Errors {
		out = append(out, fmt.Sprintf("part of the snapshot could not be read: %s (%s)", e.What, e.Err))
	}
	for _, n := range rep.Decision.Notes {
		out = append(out, n)
	}
	for _, q := range queues {
		name := q.Queue
		if q.Partition != "" {
			name += " on " + q.Partition
		}
		switch {
		case q.BandLow != nil && q.Capacity <= *q.BandLow+0.05:
			out = append(out, fmt.Sprintf("queue %s is at the low edge of its band (%.1f%% of parent, band %.1f–%.1f%%)", name, q.Capacity, *q.BandLow, orZero(q.BandHigh)))
		case q.BandHigh != nil && q.Capacity >= *q.BandHigh-0.05:
			out = append(out, fmt.Sprintf("queue %s is at the high edge of its band (%.1f%% of parent, band %.1f–%.1f%%)", name, q.Capacity, orZero(q.BandLow), *q.BandHigh))
		}
	}
	out = append(out, learn.NodeTypeHints(rep.TypeSplits)...)
	if rep.Err != nil {
		out = append(out, "last cycle failed: "+rep.Err.Error())
	}
	return out
}

// jobViews counts running apps by App.JobView (nil when jobs were not
// observed).
func jobViews(snap cluster.Snapshot) map[cluster.JobView]int {
	var out map[cluster.JobView]int
	for _, a := range snap.Apps {
		if a.State != cluster.AppRunning || a.JobView == "" {
			continue
		}
		if out == nil {
			out = map[cluster.JobView]int{}
		}
		out[a.JobView]++
	}
	return out
}

// orZero is *p, 0 when p is nil.
func orZero(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
