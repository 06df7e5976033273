package decide

import (
	"fmt"
	"maps"
	"slices"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// CalibrationSent is a queue the plan routed to a partition to measure its
// classes' rates there (progress.QueuePlan.Calibrating; Lee §4.3.1.4):
// the partition and the classes it held then.
type CalibrationSent struct {
	Partition string
	Classes   []string
}

// calibrationNoGain is how much faster a partition must run a queue's
// classes to be worth keeping an idle queue in (progress.movable's 5%).
const calibrationNoGain = 1.05

// calibrationReturnStep sends an idle queue the plan routed elsewhere only
// to calibrate back to the admin's home partition once its classes' rates
// there are measured and show no gain over home (Lee §4.3.1.4: a job runs
// on every node type only until its rates are known). The planner leaves
// idle queues where they are, so without this the move back waited for the
// queue's next job and a free slot in the hourly mutation budget: on
// hetero-100 the reports queue stayed on the slower GPU nodes for up to an
// hour while the plans written in between (other queues' changes) could
// have carried it. An idle queue's move is a restore (restoresStep, after
// this step) and rides on any plan written.
//
// Ablation (issue 32: keep a step only if removing it costs a held-out
// figure), on the tuning clusters 1–8 (gen.TuningSeeds), one run seed, at
// 732e70b: go run ./testenv/bench -only heldout -heldout-tuning -heldout-n 8
// -heldout-ablate "route gain,goal route,served first,goal jobs keep what
// they run,calibrationReturn,restores" (26 min wall on a shared 2-CPU
// machine; full sidecar: 2/8 clusters with a class >5% slower than stock,
// 3/8 >2%, mean 0.667× stock, 0.881× best static, worst class 1.48×, 10.92
// reversals/queue-hour): removing it changed no figure (mean 1.000× the full
// sidecar's; every row identical): it costs nothing measurable on generated
// clusters; its case is hetero-100's (above), not measured without it here.
type calibrationReturnStep struct {
	Sent map[string]CalibrationSent
	Seen map[string]SeenValue
}

func (calibrationReturnStep) Name() string { return "calibrationReturn" }

func (st calibrationReturnStep) Run(s *decideState) error {
	demand := demandByPath(s.Queues)
	slots := map[string]map[string]int64{}
	for _, p := range s.Parts {
		slots[p.Name] = p.Slots
	}
	for _, path := range slices.Sorted(maps.Keys(st.Sent)) {
		sent := st.Sent[path]
		t, planned := s.Targets[path]
		q, live := s.Tree.ByPath[path]
		d, steered := demand[path]
		seen := st.Seen[SeenKey(path, "")]
		if !planned || !live || !steered || d.Pinned || d.Demand > 0 || seen.Home == nil || q.DefaultLabelExpression != sent.Partition || *seen.Home == sent.Partition {
			continue
		}
		there, ok1 := mixRate(s.Rates, sent.Classes, slots[sent.Partition])
		home, ok2 := mixRate(s.Rates, sent.Classes, slots[*seen.Home])
		if !ok1 || !ok2 || there > calibrationNoGain*home {
			continue
		}
		h := *seen.Home
		t.DefaultLabelExpression = &h
		t.Reason = fmt.Sprintf("calibrated in %q (mean CR %.2f vs %.2f at home), idle: back to the admin's home partition %q", sent.Partition, there, home, h)
		s.Targets[path] = t
		s.Notes = append(s.Notes, fmt.Sprintf("queue %s: %s", path, t.Reason))
	}
	return nil
}

// mixRate is the classes' mean CR over a partition's slots (eq. 4.1's
// denominator per slot, the classes weighted equally); false when a class
// has no measured rate on one of its node types or it has no slots.
func mixRate(rates progress.Rates, classes []string, slots map[string]int64) (float64, bool) {
	var total int64
	for _, n := range slots {
		total += n
	}
	if rates == nil || len(classes) == 0 || total == 0 {
		return 0, false
	}
	sum := 0.0
	for _, c := range classes {
		for typ, n := range slots {
			if n == 0 {
				continue
			}
			v, known := rates.Rate(c, typ)
			if !known {
				return 0, false
			}
			sum += float64(n) * v
		}
	}
	return sum / float64(total) / float64(len(classes)), true
}

// calibrations remembers the queues the plan sent to calibrate, from the
// decision that sent them until they live elsewhere: an idle queue has no
// running job to tell its classes by.
type calibrations map[string]CalibrationSent

// forget drops the queues that no longer live where they were sent (moved
// back, or the move was never written).
func (c calibrations) forget(tree *schedconf.Tree) {
	for path, sent := range c {
		if q, ok := tree.ByPath[path]; !ok || q.DefaultLabelExpression != sent.Partition {
			delete(c, path)
		}
	}
}

// record notes the queues this plan sends to calibrate, and adds the
// classes a sent queue runs while it is there.
func (c calibrations) record(plan progress.CapacityPlan, queues []progress.QueueDemand, tree *schedconf.Tree) {
	mix := map[string]map[string]float64{}
	for _, q := range queues {
		mix[q.Path] = q.Mix
	}
	for _, qp := range plan.Queues {
		sent, ok := c[qp.Path]
		switch {
		case qp.Calibrating != "" && sent.Partition != qp.Calibrating:
			sent = CalibrationSent{Partition: qp.Calibrating}
		case qp.Calibrating == "" && !ok:
			continue
		}
		if q, live := tree.ByPath[qp.Path]; qp.Calibrating == "" && (!live || q.DefaultLabelExpression != sent.Partition) {
			continue
		}
		for class := range mix[qp.Path] {
			if !slices.Contains(sent.Classes, class) {
				sent.Classes = append(sent.Classes, class)
			}
		}
		slices.Sort(sent.Classes)
		c[qp.Path] = sent
	}
}
