package decide

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// DefaultHarmMarginPercent is how much slower than under the admin's own
// configuration a plan may predict a running class to progress before the
// do-no-harm step cuts it back (issue 32).
const DefaultHarmMarginPercent = 2.0

// DefaultRepairMarginPercent is how much slower than under the admin's
// configuration the live configuration must be predicted to make a running
// class for a plan that gives back to pass the rate limit's hourly cap
// (plan.Repairs, act.RepairsOnly): the fluid model's prediction, not a
// measured slowdown, so a larger margin than the plan's own. On tuning
// cluster 45 (run seed 1) the stuck configuration was predicted to slow
// etl's c4-cpu by 44% (it ran 2.3× stock); on tuning cluster 10 a return
// for a 6% prediction (research's flat classes) passed the cap and the
// configuration it left, which the sidecar could then not move away from
// within the hour, made the cluster's mean 235 → 314 s (run seed 1).
const DefaultRepairMarginPercent = 10.0

// DefaultCalibrationMaxContainers bounds the containers a queue sent to an
// unmeasured partition to calibrate may have in demand (issue 32: the
// first plans on a generated cluster sent a queue of 500-map jobs to a
// 4-node partition "to measure its rates there").
const DefaultCalibrationMaxContainers = 16

// harmStep is the do-no-harm check (issue 32): before a plan is written,
// each running class's progress rate is predicted under the plan and under
// the admin's configuration (FirstSeen: the capacities and homes the admin
// had set when the sidecar first saw each queue), with the calibrated
// rates; a plan under which some class is predicted more than Margin
// slower is cut back toward the admin's values — capacities blended
// toward the admin's share of the parent, then homes back to the admin's —
// until none is, or it is the admin's configuration.
//
// The prediction is a fluid model of the Capacity Scheduler on this
// snapshot's demand (harmServe): in each partition the queues living there
// get their guarantee, capped at their demand, and what is left goes to
// those still wanting by their guarantee; idle slots of non-exclusive
// partitions are lent to default-partition queues. A class's rate is its
// queue's containers per partition times the class's calibrated rate on
// the partition's node types (Lee eq. 4.1's numerator); an unmeasured
// type counts at the class's slowest measured rate, so a plan is never
// judged on hope. Queues whose goal jobs need containers (deadlineQueues)
// are not cut back nor judged (the stated exception: the queue
// gains a deadline it would miss otherwise); a queue sent to
// calibrate with at most CalibrationMax containers of demand is not judged
// either (the bounded sample its calibration risks), but the harm its move
// does to others is.
//
// Runs after the bands (every blend of two in-band values is in band) and
// before the preemption steps, which only move targets toward live values.
type harmStep struct {
	Seen map[string]SeenValue
	// Margin in percent (0: DefaultHarmMarginPercent; negative: off).
	Margin float64
	// CalibrationMax is the largest demand (containers) a queue sent to
	// calibrate may have (0: DefaultCalibrationMaxContainers).
	CalibrationMax int64
}

func (harmStep) Name() string { return "do no harm" }

// harmConfig is one configuration as the check sees it: each leaf's home
// and its share of each partition (0..1).
type harmConfig struct {
	home map[string]string
	abs  map[string]map[string]float64
}

// harmBlends are the cut-backs tried in order: the share of the plan's
// move kept for capacities, and whether the plan's homes are kept.
var harmBlends = []struct {
	keep      float64
	planHomes bool
}{{0.75, true}, {0.5, true}, {0.5, false}, {0.25, false}, {0, false}}

func (st harmStep) Run(s *decideState) error {
	margin := st.Margin
	if margin == 0 {
		margin = DefaultHarmMarginPercent
	}
	if margin < 0 || len(s.Targets) == 0 || len(s.Queues) == 0 {
		return nil
	}
	exempt := deadlineQueues(s)
	calMax := st.CalibrationMax
	if calMax == 0 {
		calMax = DefaultCalibrationMaxContainers
	}
	queues := QueueRateKeys(s.Queues, s.Rates)
	for _, qp := range s.Plan.Queues {
		if qp.Calibrating == "" {
			continue
		}
		for _, q := range queues {
			if q.Path == qp.Path && q.Demand <= calMax {
				exempt[q.Path] = true
			}
		}
	}
	admin := st.adminConfig(s)
	base := harmServe(s.Parts, queues, admin, s.Rates)
	harmedBy := func(t map[string]plan.QueueTarget, margin float64) []string {
		got := harmServe(s.Parts, queues, planConfig(s, t), s.Rates)
		var out []string
		for _, k := range slices.Sorted(maps.Keys(base)) {
			if exempt[strings.SplitN(k, "\x00", 2)[0]] || base[k] <= 0 {
				continue
			}
			if got[k] < base[k]*(1-margin/100) {
				out = append(out, fmt.Sprintf("%s %.0f%%", strings.Replace(strings.TrimPrefix(k, "root."), "\x00", "/", 1), 100*(got[k]/base[k]-1)))
			}
		}
		return out
	}
	harmed := func(t map[string]plan.QueueTarget) []string { return harmedBy(t, margin) }
	// What the live configuration does to each class, for the repairs.
	repairMargin := max(DefaultRepairMarginPercent, margin)
	live := harmedBy(nil, repairMargin)
	defer func() {
		s.Repairs = repaired(live, harmed(s.Targets))
		if len(s.Repairs) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("do no harm: the live configuration is predicted to slow %s against the admin's (repair margin %.0f%%); the plan does not", strings.Join(s.Repairs, ", "), repairMargin))
		}
	}()
	worse := harmed(s.Targets)
	if len(worse) == 0 {
		return nil
	}
	for _, b := range harmBlends {
		t := st.blend(s, b.keep, b.planHomes, exempt)
		if left := harmed(t); len(left) == 0 || b.keep == 0 {
			s.Targets = t
			s.Notes = append(s.Notes, fmt.Sprintf("do no harm: the plan predicted %s against the admin's configuration (margin %.1f%%); cut back to %.0f%% of its capacity moves%s",
				strings.Join(worse, ", "), margin, 100*b.keep, map[bool]string{true: "", false: ", homes as the admin set them"}[b.planHomes]))
			return nil
		}
	}
	return nil
}

// repaired are the classes harmed under the live configuration (live,
// "queue/class -N%") that the plan no longer harms (planned).
func repaired(live, planned []string) []string {
	still := map[string]bool{}
	for _, h := range planned {
		still[harmedClass(h)] = true
	}
	var out []string
	for _, h := range live {
		if !still[harmedClass(h)] {
			out = append(out, h)
		}
	}
	return out
}

// harmedClass is the "queue/class" of a harmed entry ("queue/class -N%").
func harmedClass(h string) string {
	name, _, _ := strings.Cut(h, " ")
	return name
}

// deadlineQueues are the queues whose goal jobs need containers now: a
// raise for a deadline at risk (Urgent), a queue whose running goal jobs
// need containers at the confidence (deadline report), or whose arriving
// or preempted goal jobs hold a claim. Their targets are not cut back nor
// judged (the queue gains a deadline it would miss otherwise); the harm
// their raise does to others is. On hetero-100-tight, exempting Urgent
// alone met 161/171 feasible goals instead of 171/171 (go run
// ./testenv/bench -only workloads -rows tight -seeds 3).
func deadlineQueues(s *decideState) map[string]bool {
	out := map[string]bool{}
	for q := range s.Urgent {
		out[q] = true
	}
	for _, r := range s.Deadlines {
		if r.Needed > 0 {
			out[r.Queue] = true
		}
	}
	for _, c := range append(append([]deadlineClaim(nil), s.Arriving...), s.Holding...) {
		out[c.Queue] = true
	}
	return out
}

// adminConfig is the admin's configuration from the first-seen values
// (the live tree's where a queue was first seen without one).
func (st harmStep) adminConfig(s *decideState) harmConfig {
	c := harmConfig{home: map[string]string{}, abs: map[string]map[string]float64{}}
	for _, leaf := range s.Tree.Leaves() {
		c.home[leaf.Path] = adminHome(st.Seen, leaf)
		c.abs[leaf.Path] = map[string]float64{}
		for _, part := range s.Tree.Labels {
			c.abs[leaf.Path][part] = leaf.AbsCapacity[part]
			if v, ok := st.Seen[SeenKey(leaf.Path, part)]; ok && !v.Unset {
				c.abs[leaf.Path][part] = v.AbsShare
			}
		}
	}
	return c
}

// planConfig is the configuration the targets would make: each queue's
// share of its parent (target, else live) multiplied down the tree.
func planConfig(s *decideState, targets map[string]plan.QueueTarget) harmConfig {
	c := harmConfig{home: map[string]string{}, abs: map[string]map[string]float64{}}
	var walk func(q *schedconf.Queue, abs map[string]float64)
	walk = func(q *schedconf.Queue, abs map[string]float64) {
		if q.IsLeaf() {
			c.abs[q.Path] = abs
			c.home[q.Path] = q.DefaultLabelExpression
			if t, ok := targets[q.Path]; ok && t.DefaultLabelExpression != nil {
				c.home[q.Path] = *t.DefaultLabelExpression
			}
			return
		}
		for _, ch := range q.Children {
			child := map[string]float64{}
			for _, part := range s.Tree.Labels {
				pct, ok := targets[ch.Path].Capacity[part]
				if !ok {
					pct = ch.ShareOfParent(part)
				}
				child[part] = abs[part] * pct / 100
			}
			walk(ch, child)
		}
	}
	root := map[string]float64{}
	for _, part := range s.Tree.Labels {
		root[part] = 1
	}
	walk(s.Tree.Root, root)
	return c
}

// blend moves every target that is not exempt back toward the admin's
// share of its parent, keeping keep of the plan's move, and rescales each
// sibling group so its sum is the plan's; with planHomes false the leaves
// go back to the admin's homes as well.
func (st harmStep) blend(s *decideState, keep float64, planHomes bool, exempt map[string]bool) map[string]plan.QueueTarget {
	out := make(map[string]plan.QueueTarget, len(s.Targets))
	type group struct{ parent, part string }
	planSum, newSum := map[group]float64{}, map[group]float64{}
	for path, t := range s.Targets {
		q, ok := s.Tree.ByPath[path]
		nt := t
		nt.Capacity = maps.Clone(t.Capacity)
		if ok && !exempt[path] {
			for part, v := range t.Capacity {
				a := q.ShareOfParent(part)
				if sv, ok := st.Seen[SeenKey(path, part)]; ok && !sv.Unset {
					a = sv.Share
				}
				nt.Capacity[part] = a + keep*(v-a)
				g := group{parentOf(path), part}
				planSum[g] += v
				newSum[g] += nt.Capacity[part]
			}
			if !planHomes && q.IsLeaf() {
				home := adminHome(st.Seen, q)
				nt.DefaultLabelExpression = &home
			}
		}
		out[path] = nt
	}
	for path, t := range out {
		if exempt[path] {
			continue
		}
		for part, v := range t.Capacity {
			g := group{parentOf(path), part}
			if ns := newSum[g]; ns > 1e-9 {
				t.Capacity[part] = math.Min(100, v*planSum[g]/ns)
			}
		}
	}
	return out
}

// harmServe is the fluid model of what each running (queue, class) gets
// under a configuration: containers per partition times the class's rate
// there, keyed queue + "\x00" + class.
func harmServe(parts []progress.PartitionSlots, queues []progress.QueueDemand, c harmConfig, rates progress.Rates) map[string]float64 {
	x := map[string]map[string]float64{} // queue → partition → containers
	for _, q := range queues {
		x[q.Path] = map[string]float64{}
	}
	left := map[string]float64{}
	fill := func(part string, total float64, members []progress.QueueDemand, weight func(progress.QueueDemand) float64, guarantee bool) float64 {
		want := func(q progress.QueueDemand) float64 {
			held := 0.0
			for _, v := range x[q.Path] {
				held += v
			}
			return math.Max(0, float64(q.Demand)-held)
		}
		if guarantee {
			size := total
			for _, q := range members {
				g := math.Min(want(q), c.abs[q.Path][part]*size)
				x[q.Path][part] += g
				total -= g
			}
		}
		// What is left goes to those still wanting, by weight (elastic
		// borrowing up to maximum-capacity, taken as 100%).
		for round := 0; round < len(members) && total > 1e-9; round++ {
			wsum := 0.0
			for _, q := range members {
				if want(q) > 1e-9 {
					wsum += weight(q)
				}
			}
			if wsum == 0 {
				break
			}
			given := 0.0
			for _, q := range members {
				if w := want(q); w > 1e-9 {
					g := math.Min(w, total*weight(q)/wsum)
					x[q.Path][part] += g
					given += g
				}
			}
			total -= given
		}
		return total
	}
	slots := func(p progress.PartitionSlots) float64 {
		n := 0.0
		for _, v := range p.Slots {
			n += float64(v)
		}
		return n
	}
	ordered := slices.Clone(parts)
	slices.SortFunc(ordered, func(a, b progress.PartitionSlots) int { return strings.Compare(b.Name, a.Name) }) // "" last
	for _, p := range ordered {
		var members []progress.QueueDemand
		for _, q := range queues {
			if q.Demand > 0 && c.home[q.Path] == p.Name {
				members = append(members, q)
			}
		}
		left[p.Name] = fill(p.Name, slots(p), members, func(q progress.QueueDemand) float64 { return math.Max(c.abs[q.Path][p.Name], 1e-6) }, true)
	}
	var defaults []progress.QueueDemand
	for _, q := range queues {
		if q.Demand > 0 && c.home[q.Path] == "" {
			defaults = append(defaults, q)
		}
	}
	for _, p := range ordered {
		if p.Name != "" && !p.Exclusive && left[p.Name] > 1e-9 {
			fill(p.Name, left[p.Name], defaults, func(q progress.QueueDemand) float64 { return math.Max(c.abs[q.Path][""], 1e-6) }, false)
		}
	}
	var types []string
	for _, p := range parts {
		for t := range p.Slots {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	out := map[string]float64{}
	for _, q := range queues {
		if q.Demand <= 0 {
			continue
		}
		for class, w := range q.Mix {
			if w <= 0 {
				continue
			}
			v := 0.0
			for _, p := range parts {
				v += x[q.Path][p.Name] * harmRate(rates, class, p, types)
			}
			out[q.Path+"\x00"+class] = v
		}
	}
	return out
}

// harmRate is a class's mean rate over a partition's slots; a type the
// class was not measured on counts at its slowest measured rate on any of
// the cluster's types (1 when none is measured).
func harmRate(r progress.Rates, class string, p progress.PartitionSlots, types []string) float64 {
	slowest := slowestKnownRate(r, class, types)
	sum, n := 0.0, 0.0
	for t, k := range p.Slots {
		v, ok := r.Rate(class, t)
		if !ok || v <= 0 {
			v = slowest
		}
		sum += float64(k) * v
		n += float64(k)
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// slowestKnownRate is a class's slowest measured rate on any of types (1
// when none is measured): the stand-in for a type it was not measured on.
func slowestKnownRate(r progress.Rates, class string, types []string) float64 {
	slowest := math.Inf(1)
	for _, t := range types {
		if v, ok := r.Rate(class, t); ok && v > 0 {
			slowest = math.Min(slowest, v)
		}
	}
	if math.IsInf(slowest, 1) {
		return 1
	}
	return slowest
}
