package calibrate

import (
	"time"

	bolt "go.etcd.io/bbolt"
)

// keySparkCursor is the Spark backfill's cursor in the meta bucket.
var keySparkCursor = []byte("spark_cursor")

// SparkCursor is the end time up to which every Spark app the History
// Server lists as completed has been read whole (issue 36): a restarted
// sidecar lists the ones that ended since (minEndDate) and learns them
// once. Zero when none was recorded.
func (s *Store) SparkCursor() (time.Time, error) {
	var t time.Time
	err := s.view(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMeta); m != nil {
			if v := m.Get(keySparkCursor); v != nil {
				return t.UnmarshalText(v)
			}
		}
		return nil
	})
	return t, err
}

// SetSparkCursor records the Spark backfill's cursor, in the same file
// and transaction discipline as the samples (fsynced; a kill keeps the
// last one committed).
func (s *Store) SetSparkCursor(t time.Time) error {
	v, _ := t.MarshalText()
	return s.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySparkCursor, v) })
}
