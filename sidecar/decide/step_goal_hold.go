package decide

import (
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
)

// goalHoldStep claims, for each running job with a goal, the containers
// it holds beyond what its claim already covers, when the RM preempts.
// The report's Needed counts a job's running tasks as finishing where
// they run: true without preemption, but with the monitor on, a queue's
// guarantee cut below what its goal job runs makes the RM kill that job's
// newest tasks and re-run them from the start (polo-a+preemption: J4 held
// its 60 maps at 1560 s, on track, needed 1 more; its queue was cut to
// 11.5% and three of its maps were killed at 1578 s, so it missed by
// 40 s). Polo never kills a running task (digest 002 §1.3), and the
// guarantee a goal raised is given back as its containers free: the
// claim falls with Held each cycle, to nothing when the job is done.
//
// The hold claims go in each job's EDF turn, so a goal that is due
// earlier still takes containers (and the RM's preemption) from a job
// due later; they are never urgent (they raise nothing the job does not
// run already). Without preemption a cut kills nothing, and no claim is
// made.
//
// Ablation (issue 32: keep a step only if removing it costs a held-out
// figure), on the tuning clusters 1–8 (gen.TuningSeeds), one run seed, at
// 732e70b: go run ./testenv/bench -only heldout -heldout-tuning -heldout-n 8
// -heldout-ablate "route gain,goal route,served first,goal jobs keep what
// they run,calibrationReturn,restores" (26 min wall on a shared 2-CPU
// machine; full sidecar: 2/8 clusters with a class >5% slower than stock,
// 3/8 >2%, mean 0.667× stock, 0.881× best static, worst class 1.48×, 10.92
// reversals/queue-hour): removing it changed no figure (mean 1.000× the full
// sidecar's; every row identical), but this measures nothing: the generated
// clusters run without the RM's preemption (testenv/gen turns none on),
// where the step makes no claim. Its case, preemption with goal jobs, was
// not measured without it.
type goalHoldStep struct {
	Guard *PreemptionGuard
	Seen  map[string]SeenValue
}

func (goalHoldStep) Name() string { return "goal jobs keep what they run" }

func (st goalHoldStep) Run(s *decideState) error {
	if !st.Guard.rmPreempts(s.Snap) {
		return nil
	}
	s.Holding = holdClaims(s.Deadlines, promisedContainers(s, st.Seen))
	return nil
}

// holdClaims are the claims for what goal jobs hold above their claims:
// Held − Needed for a job that can meet its goal, Held − its queue's
// admin guarantee (promised, what deadlineClaims gives it in its turn)
// for one that cannot. Jobs without a goal or a verdict claim nothing.
func holdClaims(reports []deadline.QueueReport, promised map[string]int) []deadlineClaim {
	var out []deadlineClaim
	for _, qr := range reports {
		for _, j := range qr.Jobs {
			if j.Deadline == nil {
				continue
			}
			covered := 0
			switch j.Verdict {
			case deadline.AtRisk, deadline.OnTrack:
				covered = j.Needed
			case deadline.CannotMeet:
				covered = promised[j.Queue]
			default:
				continue
			}
			if extra := j.Held - covered; extra > 0 {
				out = append(out, deadlineClaim{Queue: j.Queue, Job: j.Name, Deadline: *j.Deadline, Needed: extra})
			}
		}
	}
	return out
}
