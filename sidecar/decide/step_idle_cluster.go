package decide

import "github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"

// idleClusterStep plans nothing while no queue has demand (issue 32, "where
// it cannot prove that, it does less"): with no job running or waiting
// and no goal job arriving, the PS plan divides nothing, so any move it
// makes is a guess at the next jobs, and the moves back when they come
// cost the hour's writes. The live configuration stands (the admin's, or
// the last plan's, which lend only idle brings back for busy queues).
//
// Why: on tuning cluster 71 (an absolute tree at load 0.2) the first plan,
// 38 s before any job, halved etl's default guarantee to equalise four
// idle queues; the restore, the calibration routes and their reversals
// followed, and etl's GPU class ran 4.4x stock.
//
// Runs right after the targets (it empties them) and before every step
// that judges or restores targets.
type idleClusterStep struct{}

func (idleClusterStep) Name() string { return "idle cluster" }

func (idleClusterStep) Run(s *decideState) error {
	for _, q := range s.Queues {
		if q.Demand > 0 {
			return nil
		}
	}
	if len(s.Arriving) > 0 || len(s.Targets) == 0 {
		return nil
	}
	s.Targets = map[string]plan.QueueTarget{}
	s.Notes = append(s.Notes, "idle cluster: no queue has demand; the live configuration stands")
	return nil
}
