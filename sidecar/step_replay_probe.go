package sidecar

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline/replay"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The replay strategy's calibration probe (issue 32 item 2: calibration
// risks a bounded sample). The replay routes a leaf only to a partition
// where each of its classes was measured (unmeasuredRoutes), and the
// admin's configuration measures only where the admin routes; so a class
// 3× faster on GPU hosts that never ran there is never found. The probe
// sends one such leaf to the partition for a few minutes, when the leaf
// is nearly idle (at most CalibrationMax containers of demand) and the
// partition has that many slots idle, with its maximum-capacity there
// capped at CalibrationMax containers (in a percentage group; weight and
// absolute groups keep the admin's maximum, so there only the demand bound
// holds). Its maps there are the sample; once their jobs are in the
// history the next replay judges the route on measured rates. Each leaf
// and partition is probed at most once per replay window, one at a time.
const (
	// DefaultReplayProbeFor is how long a probe keeps the leaf there.
	DefaultReplayProbeFor = 5 * time.Minute
	// replayAfterProbe is when the replay runs again after a probe ends
	// (its jobs finish, JobHistory serves them, the rates are rebuilt).
	replayAfterProbe = 20 * time.Minute
	// replayProbeMaxBusy is the most a leaf's work over the window may
	// fill of its guaranteed slots for it to be probed: while probed its
	// new containers go to the partition (at most CalibrationMax of them),
	// and a queue that fills its guarantee never wins back the minutes
	// lost. Tuning cluster 3 (load 1.0), run seed 1: probing etl and ml
	// for five minutes each at the day's start made two classes 1.60× and
	// 1.41× slower than stock.
	replayProbeMaxBusy = 0.5
)

// replayProbe is the probe under way and those done.
type replayProbe struct {
	Leaf, Partition string
	// Since is when the probe was decided, LiveSince when the live
	// configuration first had the leaf there (zero: not yet): the probe
	// lasts For from LiveSince, and is given up if not live within For.
	Since, LiveSince time.Time
	Containers       int64
	// Done are the leaves and partitions probed, with when.
	Done map[[2]string]time.Time
	// Ceilings are the maximum-capacities a probe capped, as they were
	// (leaf, partition → percent): written back until the live
	// configuration has them again, so a cap never outlives its probe.
	Ceilings map[[2]string]float64
}

type replayProbeStep struct {
	Jobs           func() []calibrate.JobRecord
	Window         time.Duration
	For            time.Duration
	CalibrationMax int64
	Probe          *replayProbe
	// Held is the replay's choice: a probe's end brings the next replay
	// forward to replayAfterProbe.
	Held  *replayChoice
	Every time.Duration
	Seen  map[string]SeenValue
}

func (replayProbeStep) Name() string { return "replay probe" }

func (st replayProbeStep) Run(s *decideState) error {
	if st.Probe == nil || st.CalibrationMax <= 0 {
		return nil
	}
	now := s.Snap.Time
	window, probeFor := st.Window, st.For
	if window <= 0 {
		window = DefaultReplayWindow
	}
	if probeFor <= 0 {
		probeFor = DefaultReplayProbeFor
	}
	var recs []calibrate.JobRecord
	if st.Jobs != nil {
		recs = st.Jobs()
	}
	jobs := replayJobs(s.Tree, recs, now.Add(-window), now, replayRate(s.Rates, s.Parts))
	unmeasured := unmeasuredRoutes(jobs, s.Rates, s.Parts)
	p := st.Probe
	if p.Done == nil {
		p.Done = map[[2]string]time.Time{}
	}
	if p.Ceilings == nil {
		p.Ceilings = map[[2]string]float64{}
	}
	st.restoreCeilings(s)
	if p.Leaf != "" {
		q := s.Tree.ByPath[p.Leaf]
		if q != nil && p.LiveSince.IsZero() && q.DefaultLabelExpression == p.Partition {
			p.LiveSince = now
		}
		from := p.LiveSince
		if from.IsZero() {
			from = p.Since
		}
		if q != nil && now.Sub(from) < probeFor && unmeasured[p.Leaf][p.Partition] {
			st.write(s, p.Leaf, p.Partition, p.Containers, fmt.Sprintf("calibration probe: %s in %s since %s", p.Leaf, p.Partition, from.Format(time.TimeOnly)))
			return nil
		}
		// Over: the leaf goes back to what the replay chose for it, a
		// move the rate limit lets through as a give-back.
		if s.Restores == nil {
			s.Restores = map[string]string{}
		}
		s.Restores[p.Leaf] = "calibration probe over: back to the replay's configuration"
		s.Notes = append(s.Notes, fmt.Sprintf("calibration probe of %s in %s over; the replay runs again within %s", p.Leaf, p.Partition, replayAfterProbe))
		p.Done[[2]string{p.Leaf, p.Partition}] = now
		p.Leaf, p.Partition = "", ""
		// The ceiling goes back with the home, in the same mutation (the
		// rate limit lets a give-back through; a ceiling alone it would
		// hold as a reversal).
		st.restoreCeilings(s)
		st.replaySoon(now)
		return nil
	}
	if len(p.Ceilings) > 0 {
		return nil // the last probe's ceiling is not back yet
	}
	leaf, part, n := st.choose(s, jobs, unmeasured, now, window)
	if leaf == "" {
		return nil
	}
	*p = replayProbe{Leaf: leaf, Partition: part, Since: now, Containers: st.CalibrationMax, Done: p.Done, Ceilings: p.Ceilings}
	s.Calibrations = append(s.Calibrations, plan.CalibrationExposure{Queue: leaf, Partition: part, Containers: st.CalibrationMax})
	st.write(s, leaf, part, st.CalibrationMax, fmt.Sprintf("calibration probe: %d of %s's jobs in the window have a class never measured in %s; at most %d containers there for %s", n, leaf, part, st.CalibrationMax, probeFor))
	return nil
}

// choose is the leaf and partition to probe: of the unmeasured routes not
// probed within the window, where the leaf may use the partition, is not
// homed there, has at most CalibrationMax containers of demand and the
// partition that many idle slots, the leaf with most jobs in the window.
func (st replayProbeStep) choose(s *decideState, jobs []replay.Job, unmeasured map[string]map[string]bool, now time.Time, window time.Duration) (string, string, int) {
	perLeaf := map[string]int{}
	for _, j := range jobs {
		perLeaf[j.Queue]++
	}
	idle := idleSlots(s)
	busy := leafBusy(jobs, harmStep{Seen: st.Seen}.adminConfig(s), s.Parts)
	queues := s.Snap.QueueIndex()
	best, bestPart, bestN := "", "", 0
	for _, leaf := range slicesSorted(unmeasured) {
		q := s.Tree.ByPath[leaf]
		if q == nil || perLeaf[leaf] <= bestN {
			continue
		}
		if t, ok := s.Targets[leaf]; ok && t.DefaultLabelExpression != nil && *t.DefaultLabelExpression != q.DefaultLabelExpression {
			continue // the replay moves this leaf's home: no probe on top
		}
		var demand int64
		if sq, ok := queues(leaf); ok && s.Slot.MemoryMB > 0 {
			for _, c := range sq.ByPartition {
				demand += (c.Used.MemoryMB + c.Pending.MemoryMB) / s.Slot.MemoryMB
			}
		}
		if demand > st.CalibrationMax || busy[leaf] > replayProbeMaxBusy {
			continue
		}
		for _, part := range slicesSorted(unmeasured[leaf]) {
			if at, ok := st.Probe.Done[[2]string{leaf, part}]; ok && now.Sub(at) < window {
				continue
			}
			if !q.CanUse(part) || q.DefaultLabelExpression == part || idle[part] < st.CalibrationMax || q.Parent.AbsMaxCapacity[part] <= 0 {
				continue
			}
			best, bestPart, bestN = leaf, part, perLeaf[leaf]
			break
		}
	}
	return best, bestPart, bestN
}

// write homes leaf in part over the replay's targets, its maximum-capacity
// there capped at max containers where its group is written in percent.
func (st replayProbeStep) write(s *decideState, leaf, part string, max int64, why string) {
	q := s.Tree.ByPath[leaf]
	t := s.Targets[leaf]
	if t.Capacity == nil {
		t.Capacity = map[string]float64{}
	}
	home := part
	t.DefaultLabelExpression = &home
	slots := int64(0)
	for _, ps := range s.Parts {
		if ps.Name == part {
			for _, n := range ps.Slots {
				slots += n
			}
		}
	}
	mode, ok := plan.GroupMode(q.Parent, part)
	own, ownOK := queueMode(q)
	if slots > 0 && ok && ownOK && mode == schedconf.ModePercentage && (own == "" || own == schedconf.ModePercentage) {
		pct := 100 * float64(max) / (float64(slots) * q.Parent.AbsMaxCapacity[part])
		if cur := plan.MaxPercentOf(q, part); pct > cur {
			pct = cur
		}
		if t.MaxCapacity == nil {
			t.MaxCapacity = map[string]float64{}
		}
		key := [2]string{leaf, part}
		if _, ok := st.Probe.Ceilings[key]; !ok {
			st.Probe.Ceilings[key] = plan.MaxPercentOf(q, part)
		}
		t.MaxCapacity[part] = float64(int(pct*100)) / 100
	}
	t.Reason = why
	s.Targets[leaf] = t
	s.Plan.Queues = slices.DeleteFunc(s.Plan.Queues, func(p progress.QueuePlan) bool { return p.Path == leaf })
	s.Plan.Queues = append(s.Plan.Queues, progress.QueuePlan{Path: leaf, Home: part, Reason: why})
	s.Notes = append(s.Notes, why)
}

// restoreCeilings writes back the maximum-capacities probes capped, except
// the one under way, until the live configuration has them again.
func (st replayProbeStep) restoreCeilings(s *decideState) {
	for key, was := range st.Probe.Ceilings {
		leaf, part := key[0], key[1]
		q := s.Tree.ByPath[leaf]
		if q == nil || plan.MaxPercentOf(q, part) == was {
			delete(st.Probe.Ceilings, key)
			continue
		}
		if leaf == st.Probe.Leaf && part == st.Probe.Partition {
			continue
		}
		t := s.Targets[leaf]
		if t.MaxCapacity == nil {
			t.MaxCapacity = map[string]float64{}
		}
		t.MaxCapacity[part] = was
		s.Targets[leaf] = t
		if s.Restores == nil {
			s.Restores = map[string]string{}
		}
		s.Restores[leaf] = "calibration probe over: maximum-capacity back to the admin's"
	}
}

// replaySoon brings the next replay forward to replayAfterProbe from now.
func (st replayProbeStep) replaySoon(now time.Time) {
	if st.Held == nil {
		return
	}
	every := st.Every
	if every <= 0 {
		every = DefaultReplayEvery
	}
	if at := now.Add(replayAfterProbe - every); st.Held.at.After(at) {
		st.Held.at = at
	}
}

// leafBusy is, per leaf, its jobs' work at speed 1 (maps and reduces, in
// slot-seconds) over its guaranteed slots in its home partition times the
// span of the window's submissions (at least an hour).
func leafBusy(jobs []replay.Job, admin harmConfig, parts []progress.PartitionSlots) map[string]float64 {
	if len(jobs) == 0 {
		return nil
	}
	first, last := jobs[0].Submit, jobs[0].Submit
	work := map[string]float64{}
	for _, j := range jobs {
		first, last = min(first, j.Submit), max(last, j.Submit)
		work[j.Queue] += float64(j.Maps)*(j.MapWork+j.MapRead) + float64(j.Reduces)*j.ReduceSeconds
	}
	span := max(last-first, time.Hour).Seconds()
	slots := map[string]float64{}
	for _, p := range parts {
		for _, n := range p.Slots {
			slots[p.Name] += float64(n)
		}
	}
	out := map[string]float64{}
	for leaf, w := range work {
		home := admin.home[leaf]
		g := admin.abs[leaf][home] * slots[home]
		if g <= 0 {
			out[leaf] = math.Inf(1)
			continue
		}
		out[leaf] = w / (g * span)
	}
	return out
}

// idleSlots are each partition's idle slots now (memory over the slot's).
func idleSlots(s *decideState) map[string]int64 {
	out := map[string]int64{}
	if s.Slot.MemoryMB <= 0 {
		return out
	}
	for _, p := range s.Snap.Partitions {
		out[p.Name] = (p.Total.MemoryMB - p.Used.MemoryMB) / s.Slot.MemoryMB
	}
	return out
}

func slicesSorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}
