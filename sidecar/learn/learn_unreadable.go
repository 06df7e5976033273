package learn

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// HistoryJobSource reads one finished job by id: the retry of a job
// JobHistory could not serve before. A job it still cannot serve is a
// *cluster.UnreadableJobsError; any other error means JobHistory did not
// answer, and no try is counted.
type HistoryJobSource interface {
	FinishedJob(ctx context.Context, jobID string) (cluster.App, error)
}

// recordUnreadable stores jobs JobHistory listed but could not serve, each
// with its first failed try; a job already recorded (listed again because
// the cursor was set back, e.g. by a backfill) keeps its schedule and only
// counts a try when one was due. Logged once per job here and once more
// when given up, not every cycle.
func (h *HistoryLearner) recordUnreadable(now time.Time, jobs []cluster.UnreadableJob) error {
	known, err := h.Store.Unreadable(time.Time{})
	if err != nil {
		return err
	}
	byID := make(map[string]calibrate.UnreadableJob, len(known))
	for _, k := range known {
		byID[k.JobID] = k
	}
	var put []calibrate.UnreadableJob
	for _, j := range jobs {
		u, ok := byID[j.ID]
		if ok && !u.Due(now) {
			continue
		}
		if !ok {
			u = calibrate.UnreadableJob{JobID: j.ID, AppID: j.AppID, Name: j.Name, Queue: j.Queue, Finished: j.FinishedTime}
		}
		u = u.Failed(now, j.Err)
		h.logFailed(u, ok)
		put = append(put, u)
	}
	if err := h.Store.PutUnreadable(put...); err != nil {
		return err
	}
	return h.loadUnreadable(now)
}

// retryUnreadable tries again the recorded jobs whose next try is due
// (calibrate.UnreadableRetryDelays): a job read at last is learned and
// forgotten, one still unreadable is rescheduled or given up. A source
// that cannot read one job by id leaves them recorded.
func (h *HistoryLearner) retryUnreadable(ctx context.Context, now time.Time, in *ingest, types map[string]string, addrs *cluster.NodeAddresses) error {
	src, ok := h.Source.(HistoryJobSource)
	if !ok {
		return h.loadUnreadable(now)
	}
	known, err := h.Store.Unreadable(time.Time{}) // a read; the write below only when one expired
	if err != nil {
		return err
	}
	for _, u := range known {
		if calibrate.UnreadableExpired(u, now) {
			if err := h.Store.PruneUnreadable(now); err != nil {
				return err
			}
			break
		}
	}
	for _, u := range known {
		if calibrate.UnreadableExpired(u, now) || !u.Due(now) {
			continue
		}
		app, err := src.FinishedJob(ctx, u.JobID)
		var still *cluster.UnreadableJobsError
		switch {
		case errors.As(err, &still):
			msg := err.Error()
			if len(still.Jobs) > 0 {
				msg = still.Jobs[0].Err
			}
			u = u.Failed(now, msg)
			h.logFailed(u, true)
			if err := h.Store.PutUnreadable(u); err != nil {
				return err
			}
		case err != nil:
			// JobHistory did not answer: no try counted, the next Learn asks again.
			return errors.Join(fmt.Errorf("retry job %s: %w", u.JobID, err), h.loadUnreadable(now))
		default:
			if err := h.ingestApp(in, app, types, addrs); err != nil {
				return err
			}
			if err := h.closePredictions([]cluster.App{app}); err != nil {
				return err
			}
			if err := h.Store.DeleteUnreadable(u.JobID); err != nil {
				return err
			}
			h.log().Info("job read from JobHistory after all", "job", u.JobID, "queue", u.Queue, "tries", u.Tries+1)
		}
	}
	return h.loadUnreadable(now)
}

func (h *HistoryLearner) logFailed(u calibrate.UnreadableJob, retried bool) {
	switch {
	case u.GaveUp:
		h.log().Warn("gave up reading a finished job from JobHistory; it is not learned", "job", u.JobID, "queue", u.Queue,
			"tries", u.Tries, "first_try", u.FirstTry, "error", u.LastError)
	case !retried:
		h.log().Warn("JobHistory cannot serve a finished job; skipped, the jobs after it are learned", "job", u.JobID,
			"queue", u.Queue, "next_try", u.NextTry, "error", u.LastError)
	default:
		h.log().Debug("job still unreadable in JobHistory", "job", u.JobID, "tries", u.Tries, "next_try", u.NextTry)
	}
}

// loadUnreadable refreshes the in-memory list Unreadable reports.
func (h *HistoryLearner) loadUnreadable(now time.Time) error {
	us, err := h.Store.Unreadable(now)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.unreadable = us
	h.mu.Unlock()
	return nil
}

// Unreadable lists the finished jobs JobHistory could not serve, being
// retried or given up (as of the last Learn).
func (h *HistoryLearner) Unreadable() []calibrate.UnreadableJob {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.unreadable
}

func (h *HistoryLearner) log() hclog.Logger {
	if h.Log == nil {
		return hclog.NewNullLogger()
	}
	return h.Log
}
