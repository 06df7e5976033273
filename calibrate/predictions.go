package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

var (
	bucketPredictions = []byte("predictions") // open: app → stage → Prediction
	bucketResiduals   = []byte("residuals")   // class, stage, finish, app → Residual
)

// Prediction is a running job's finish as the class model saw it when the
// job reached a stage of its maps: Remain seconds after At.
type Prediction struct {
	Class  string    `json:"class"`
	Stage  int       `json:"stage"`
	At     time.Time `json:"at"`
	Remain float64   `json:"remainSeconds"`
}

// Residual is a closed prediction: the job ended Ratio × Remain after At.
type Residual struct {
	Class  string    `json:"class"`
	Stage  int       `json:"stage"`
	Ratio  float64   `json:"ratio"`
	Finish time.Time `json:"finish"`
	AppID  string    `json:"app"`
}

// openPredictionTTL drops predictions of jobs that never show up finished
// in JobHistory (killed, failed, or not MapReduce) after a week.
const openPredictionTTL = 7 * 24 * time.Hour

func (s *Store) buckets(tx *bolt.Tx) (open, closed *bolt.Bucket, err error) {
	if open, err = tx.CreateBucketIfNotExists(bucketPredictions); err != nil {
		return nil, nil, err
	}
	closed, err = tx.CreateBucketIfNotExists(bucketResiduals)
	return open, closed, err
}

// OpenPredictions remembers each job's first prediction at each stage
// (app id → predictions); one already held for an app and stage is kept,
// so the residual scores the prediction made when the stage was reached.
func (s *Store) OpenPredictions(by map[string][]Prediction) error {
	if len(by) == 0 {
		return nil
	}
	err := s.update(func(tx *bolt.Tx) error {
		open, _, err := s.buckets(tx)
		if err != nil {
			return err
		}
		for app, ps := range by {
			b, err := open.CreateBucketIfNotExists([]byte(app))
			if err != nil {
				return err
			}
			for _, p := range ps {
				k := []byte(fmt.Sprintf("%03d", p.Stage))
				if b.Get(k) != nil {
					continue
				}
				v, err := json.Marshal(p)
				if err != nil {
					return err
				}
				if err := b.Put(k, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store predictions: %w", err)
	}
	return nil
}

// Finished is a job JobHistory reports finished, for ClosePredictions.
type Finished struct {
	AppID     string
	Finish    time.Time
	Succeeded bool
}

// ClosePredictions scores finished apps' open predictions against their
// finish times, in one transaction, and keeps at most keep residuals per
// class and stage (the newest). A job that did not succeed has its
// predictions dropped unscored (a killed job's end says nothing of the
// model), and open predictions a week older than the newest finish are
// dropped too (jobs that never reach JobHistory). It returns the new
// residuals.
func (s *Store) ClosePredictions(jobs []Finished, keep int) ([]Residual, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	var out []Residual
	err := s.update(func(tx *bolt.Tx) error {
		open, closed, err := s.buckets(tx)
		if err != nil {
			return err
		}
		var newest time.Time
		for _, j := range jobs {
			if j.Finish.After(newest) {
				newest = j.Finish
			}
			b := open.Bucket([]byte(j.AppID))
			if b == nil {
				continue
			}
			if j.Succeeded {
				err := b.ForEach(func(_, v []byte) error {
					var p Prediction
					if err := json.Unmarshal(v, &p); err != nil {
						return fmt.Errorf("prediction of %s: %w", j.AppID, err)
					}
					r := Residual{Class: p.Class, Stage: p.Stage, Finish: j.Finish, AppID: j.AppID}
					if p.Remain > 0 {
						r.Ratio = j.Finish.Sub(p.At).Seconds() / p.Remain
					}
					if r.Ratio > 0 {
						out = append(out, r)
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			if err := open.DeleteBucket([]byte(j.AppID)); err != nil {
				return err
			}
		}
		for _, r := range out {
			v, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := closed.Put(residualKey(r), v); err != nil {
				return err
			}
			if err := pruneResiduals(closed, r.Class, r.Stage, keep); err != nil {
				return err
			}
		}
		return expireOpen(open, newest.Add(-openPredictionTTL))
	})
	if err != nil {
		return nil, fmt.Errorf("close predictions: %w", err)
	}
	return out, nil
}

// Residuals returns every kept residual, per class and stage oldest first.
func (s *Store) Residuals() ([]Residual, error) {
	var out []Residual
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketResiduals)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r Residual
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("residual %q: %w", k, err)
			}
			out = append(out, r)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read residuals: %w", err)
	}
	return out, nil
}

// residualKey sorts by class, stage, then finish time.
func residualKey(r Residual) []byte {
	return []byte(fmt.Sprintf("%s\x00%03d\x00%020d\x00%s", r.Class, r.Stage, r.Finish.UnixNano(), r.AppID))
}

// pruneResiduals deletes the oldest of a class and stage beyond keep.
func pruneResiduals(b *bolt.Bucket, class string, stage, keep int) error {
	if keep <= 0 {
		return nil
	}
	prefix := []byte(fmt.Sprintf("%s\x00%03d\x00", class, stage))
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for i := 0; i < len(keys)-keep; i++ {
		if err := b.Delete(keys[i]); err != nil {
			return err
		}
	}
	return nil
}

// expireOpen drops open predictions all made before cutoff.
func expireOpen(open *bolt.Bucket, cutoff time.Time) error {
	var stale [][]byte
	err := open.ForEachBucket(func(app []byte) error {
		latest := time.Time{}
		err := open.Bucket(app).ForEach(func(_, v []byte) error {
			var p Prediction
			if json.Unmarshal(v, &p) == nil && p.At.After(latest) {
				latest = p.At
			}
			return nil
		})
		if err == nil && latest.Before(cutoff) {
			stale = append(stale, append([]byte(nil), app...))
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, app := range stale {
		if err := open.DeleteBucket(app); err != nil {
			return err
		}
	}
	return nil
}
