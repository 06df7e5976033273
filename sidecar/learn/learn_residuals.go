package learn

import (
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// PredictionTracker remembers the deadline report's predictions so that,
// when the jobs finish, they become the residuals that calibrate the next
// ones (deadline.Residuals). The loop calls it after each decision.
type PredictionTracker interface {
	Track(at time.Time, reports []deadline.QueueReport) error
}

// Track implements PredictionTracker: each job's model prediction at the
// stage of its maps it has reached is stored (durably, with the
// calibration history) until JobHistory reports the job finished.
func (h *HistoryLearner) Track(at time.Time, reports []deadline.QueueReport) error {
	if h.ReadOnly {
		return nil // predictions are kept only by the daemon's own store
	}
	by := map[string][]calibrate.Prediction{}
	for _, q := range reports {
		for _, j := range q.Jobs {
			if j.Stage > 0 && j.ModelRemain > 0 && j.Class != "" {
				by[j.AppID] = append(by[j.AppID], calibrate.Prediction{Class: j.Class, Stage: j.Stage, At: at, Remain: j.ModelRemain})
			}
		}
	}
	if err := h.Store.OpenPredictions(by); err != nil {
		return fmt.Errorf("track predictions: %w", err)
	}
	return nil
}

// Residuals are the scored predictions per class and stage (a copy).
func (h *HistoryLearner) Residuals() *deadline.Residuals {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.residuals.Clone()
}

// closePredictions scores the predictions of jobs JobHistory reports
// finished and adds the residuals to the learner's set.
func (h *HistoryLearner) closePredictions(jobs []cluster.App) error {
	var fin []calibrate.Finished
	for _, a := range jobs {
		ok := a.Job == nil || a.Job.State == "" || a.Job.State == "SUCCEEDED"
		fin = append(fin, calibrate.Finished{AppID: a.ID, Finish: a.FinishedTime, Succeeded: ok})
	}
	rs, err := h.Store.ClosePredictions(fin, deadline.DefaultResidualMax)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.residuals == nil {
		h.residuals = deadline.NewResiduals()
	}
	for _, r := range rs {
		h.residuals.Add(deadline.Residual{Class: r.Class, Stage: r.Stage, Ratio: r.Ratio})
	}
	return nil
}

// loadResiduals reads the stored residuals (Refresh).
func (h *HistoryLearner) loadResiduals() error {
	all, err := h.Store.Residuals()
	if err != nil {
		return err
	}
	rs := deadline.NewResiduals()
	for _, r := range all {
		rs.Add(deadline.Residual{Class: r.Class, Stage: r.Stage, Ratio: r.Ratio})
	}
	h.mu.Lock()
	h.residuals = rs
	h.mu.Unlock()
	return nil
}
