package calibrate

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketUnreadable holds jobs JobHistory listed but could not serve
// (job id → UnreadableJob), so a restarted sidecar keeps retrying them on
// the same schedule and keeps reporting the ones it gave up on.
var bucketUnreadable = []byte("unreadable")

// UnreadableJob is a finished job whose history could not be read: when it
// was first and last tried, how often, the last error, and the next try
// (zero once given up).
type UnreadableJob struct {
	JobID     string    `json:"job"`
	AppID     string    `json:"appId"`
	Name      string    `json:"name,omitempty"`
	Queue     string    `json:"queue,omitempty"`
	Finished  time.Time `json:"finished"`
	FirstTry  time.Time `json:"firstTry"`
	LastTry   time.Time `json:"lastTry"`
	Tries     int       `json:"tries"`
	NextTry   time.Time `json:"nextTry,omitempty"`
	GaveUp    bool      `json:"gaveUp"`
	LastError string    `json:"lastError"`
}

// UnreadableRetryDelays are the waits after the 1st, 2nd, ... failed read
// of a job before the next: five reads spread over about 21 hours, so a
// JobHistory that is repaired (the file restored, the server restarted)
// within a day loses no job, and one that never is costs five requests per
// job, not one per cycle. After the last delay's try fails, the job is
// given up.
var UnreadableRetryDelays = []time.Duration{15 * time.Minute, time.Hour, 4 * time.Hour, 16 * time.Hour}

// unreadableKeep is how long a given-up job stays listed (reported) after
// its last try.
const unreadableKeep = 7 * 24 * time.Hour

// Failed records one more failed read of a job at now: the next try by
// UnreadableRetryDelays, or given up after the last.
func (u UnreadableJob) Failed(now time.Time, err string) UnreadableJob {
	if u.FirstTry.IsZero() {
		u.FirstTry = now
	}
	u.LastTry, u.LastError = now, err
	u.Tries++
	if u.Tries > len(UnreadableRetryDelays) {
		u.GaveUp, u.NextTry = true, time.Time{}
		return u
	}
	u.NextTry = now.Add(UnreadableRetryDelays[u.Tries-1])
	return u
}

// Due: a try is due at now.
func (u UnreadableJob) Due(now time.Time) bool { return !u.GaveUp && !now.Before(u.NextTry) }

// PutUnreadable stores (or replaces) jobs' records in one transaction.
func (s *Store) PutUnreadable(jobs ...UnreadableJob) error {
	if len(jobs) == 0 {
		return nil
	}
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketUnreadable)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			v, err := json.Marshal(j)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(j.JobID), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record unreadable jobs: %w", err)
	}
	return nil
}

// DeleteUnreadable forgets a job (it was read after all).
func (s *Store) DeleteUnreadable(jobID string) error {
	err := s.update(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketUnreadable); b != nil {
			return b.Delete([]byte(jobID))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget unreadable job %s: %w", jobID, err)
	}
	return nil
}

// Unreadable lists the recorded jobs by finish time, leaving out given-up
// ones whose last try is more than a week before now (zero now: none). It
// writes nothing (read-only commands list them); PruneUnreadable drops them.
func (s *Store) Unreadable(now time.Time) ([]UnreadableJob, error) {
	var out []UnreadableJob
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketUnreadable)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var j UnreadableJob
			if err := json.Unmarshal(v, &j); err != nil {
				return fmt.Errorf("job %s: %w", k, err)
			}
			if !UnreadableExpired(j, now) {
				out = append(out, j)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read unreadable jobs: %w", err)
	}
	sort.Slice(out, func(i, k int) bool {
		if !out[i].Finished.Equal(out[k].Finished) {
			return out[i].Finished.Before(out[k].Finished)
		}
		return out[i].JobID < out[k].JobID
	})
	return out, nil
}

// UnreadableExpired: a given-up job last tried more than a week before now
// (zero now: never), no longer listed.
func UnreadableExpired(j UnreadableJob, now time.Time) bool {
	return !now.IsZero() && j.GaveUp && now.Sub(j.LastTry) > unreadableKeep
}

// PruneUnreadable forgets given-up jobs last tried more than a week before now.
func (s *Store) PruneUnreadable(now time.Time) error {
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketUnreadable)
		if b == nil {
			return nil
		}
		var drop [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var j UnreadableJob
			if json.Unmarshal(v, &j) == nil && UnreadableExpired(j, now) {
				drop = append(drop, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range drop {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("prune unreadable jobs: %w", err)
	}
	return nil
}
