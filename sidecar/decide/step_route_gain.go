package decide

import (
	"fmt"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
)

// routeGainStep keeps a queue in the partition it runs in when the plan
// would route it (default-node-label-expression) to a partition where its
// work exceeds the guarantee it would get there (the plan's, at most what
// it holds there now), that guarantee is smaller than what it holds where
// it runs, and the faster rate there does not make up for it:
// G(to) < min(work, G(from)) and rate(to)·G(to) < rate(from)·
// min(work, G(from)), G the guarantee in slots, rate the plan's mean CR of
// the queue's classes per partition (PS = rate × containers, digest 000
// §1.3). Such a move only pays while the target partition is idle; under
// load every job of the queue submitted after it waits on the smaller
// partition (issue 18: fb-2009-saturated seed 2, adhoc — 1.1× on gpu —
// routed to the 10 GPU nodes for two minutes: its fb-tiny jobs waited
// 1m10s for an AM instead of 0.5 s, fb-tiny 1.80× of stock; the plan gave
// it 100% of gpu, the step limit wrote 15→40%). A move whose
// speed-up pays even on the guarantee alone is left to the plan
// (routeFitStep, which kept every queue whose work exceeded the guarantee
// there, cut hetero-100-tight's goals met from 162 to 158 of 171), and so
// are queues with goal jobs (the deadline steps own them), moves to
// measure a class's rates (calibration) and moves to a larger guarantee
// at a slower rate (hetero-100-tight seed 1: adhoc kept on gpu, 2.0× there
// but 104 slots against 129, missed two crypto goals).
//
// It applies to queues of small jobs only (at most smallJobContainers of
// work per running job): such a job's completion is its wait for a few
// containers, which a faster rate does not shorten. With it for every
// queue (its guarantee there capped at what it holds now) hetero-100-tight
// met 162/171 goals against 165 without (bench -rows tight -seeds 3): its
// queues of 20–400-map jobs lost moves whose gain came later.
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
// clusters; its case is fb-2009-saturated's (above), not measured without it
// here.
type routeGainStep struct{}

// smallJobContainers: an AM and a map or two (SWIM's fb-tiny: one map, at
// most one reduce; fb-2009-saturated's adhoc ran 119 containers for 58
// jobs when it was routed).
const smallJobContainers = 4

func (routeGainStep) Name() string { return "route gain" }

func (routeGainStep) Run(s *decideState) error {
	totals := partitionTotals(plannable(s))
	full := partitionTotals(s.Parts)
	goals := queuesWithGoals(s.Deadlines)
	running := map[string]int{}
	for _, a := range s.Snap.RunningApps() {
		running[a.Queue]++
	}
	byPath := demandByPath(s.Queues)
	floors := map[string]map[string]float64{}
	for i := range s.Plan.Queues {
		qp := &s.Plan.Queues[i]
		q, known := byPath[qp.Path]
		from, to := q.Home, qp.Home
		if !known || to == from || q.Demand == 0 || q.Pinned || qp.Calibrating != "" || goals[qp.Path] {
			continue
		}
		leaf, ok := s.Tree.ByPath[qp.Path]
		if !ok || totals[from] <= 0 {
			continue
		}
		work := float64(q.Demand)
		if running[qp.Path] == 0 || work > smallJobContainers*float64(running[qp.Path]) {
			continue // large jobs: their rate there may pay for the wait
		}
		// The route takes effect at the next allocation, while the
		// guarantee there rises by at most max_step_percent a cycle: at
		// first it has at most what it holds there now.
		there := min(qp.Capacity[to]/100*totals[to], leaf.AbsCapacity[to]*full[to])
		if work <= there {
			continue // its work fits its guarantee there
		}
		here := min(work, leaf.AbsCapacity[from]*full[from])
		if there >= here {
			continue // no fewer slots than it holds now: its jobs wait no longer
		}
		rTo, rFrom := qp.Rate[to], qp.Rate[from]
		if rTo <= 0 || rFrom <= 0 || rTo*there >= rFrom*here {
			continue // unknown rates, or the speed-up pays on the guarantee alone
		}
		s.Notes = append(s.Notes, fmt.Sprintf("queue %s stays in partition %q: routed to %q its %d containers of work would run at %.2f×%.0f there against %.2f×%.0f now",
			qp.Path, from, to, q.Demand, rTo, there, rFrom, here))
		qp.Home = from
		qp.Reason = fmt.Sprintf("kept in partition %q: on the guarantee it would have in %q its work would progress slower", from, to)
		if qp.Capacity == nil {
			qp.Capacity = map[string]float64{}
		}
		if _, ok := qp.Capacity[from]; !ok {
			qp.Capacity[from] = 0
		}
		if floors[from] == nil {
			floors[from] = map[string]float64{}
		}
		// What it holds now there, in the plan's unit.
		floors[from][qp.Path] = min(100, 100*here/totals[from])
	}
	liftPlan(s, floors, "")
	return nil
}

// queuesWithGoals are the queues running at least one job with a goal.
func queuesWithGoals(reports []deadline.QueueReport) map[string]bool {
	out := map[string]bool{}
	for _, r := range reports {
		for _, j := range r.Jobs {
			if j.Deadline != nil {
				out[j.Queue] = true
			}
		}
	}
	return out
}

// demandByPath indexes the planned queues' demand by queue path.
func demandByPath(queues []progress.QueueDemand) map[string]progress.QueueDemand {
	out := make(map[string]progress.QueueDemand, len(queues))
	for _, q := range queues {
		out[q.Path] = q
	}
	return out
}
