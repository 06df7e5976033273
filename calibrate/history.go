package calibrate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/yarn-sidecar/yarn-sidecar/internal/killpoint"
)

// schemaVersion is the history's layout; Open migrates older files.
const schemaVersion = 1

var (
	bucketMeta     = []byte("meta")
	bucketAttempts = []byte("attempts")
	keyVersion     = []byte("schema_version")
	keyCursor      = []byte("cursor")
)

// Store is the durable calibration history: every attempt once (keyed by
// attempt id), in a bbolt file whose transactions are atomic and fsynced,
// so a SIGKILL mid-write loses nothing committed and never corrupts it.
type Store struct{ db *bolt.DB }

// Open opens or creates a history file.
func Open(path string) (*Store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("open calibration history %s: locked by another process (is a sidecar already running?)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open calibration history %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketAttempts); err != nil {
			return err
		}
		v := meta.Get(keyVersion)
		switch {
		case v == nil:
			return meta.Put(keyVersion, []byte(fmt.Sprint(schemaVersion)))
		case string(v) == fmt.Sprint(schemaVersion):
			return nil
		default:
			return fmt.Errorf("schema version %s is newer than this binary's %d", v, schemaVersion)
		}
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("calibration history %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the file.
func (s *Store) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// Add stores samples in one transaction; attempts already stored are
// skipped (idempotent on attempt id). It returns how many were new.
func (s *Store) Add(samples []Sample) (int, error) {
	added := 0
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAttempts)
		for _, sm := range samples {
			if sm.AttemptID == "" {
				return fmt.Errorf("sample without attempt id (job %s)", sm.JobID)
			}
			k := []byte(sm.AttemptID)
			if b.Get(k) != nil {
				continue
			}
			v, err := json.Marshal(sm)
			if err != nil {
				return err
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
			added++
		}
		if added > 0 {
			killpoint.At(killpoint.StoreWrite)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store attempts: %w", err)
	}
	return added, nil
}

// All returns every stored sample.
func (s *Store) All() ([]Sample, error) {
	var out []Sample
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAttempts)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var sm Sample
			if err := json.Unmarshal(v, &sm); err != nil {
				return fmt.Errorf("attempt %s: %w", k, err)
			}
			out = append(out, sm)
			return nil
		})
	})
	return out, err
}

// Count is the number of stored attempts.
func (s *Store) Count() (int, error) {
	n := 0
	err := s.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketAttempts); b != nil {
			n = b.Stats().KeyN
		}
		return nil
	})
	return n, err
}

// Cursor is the finish time up to which JobHistory has been ingested.
func (s *Store) Cursor() (time.Time, error) {
	var t time.Time
	err := s.view(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMeta); m == nil {
			return nil
		} else if v := m.Get(keyCursor); v != nil {
			return t.UnmarshalText(v)
		}
		return nil
	})
	return t, err
}

// SetCursor records the ingest cursor.
func (s *Store) SetCursor(t time.Time) error {
	v, _ := t.MarshalText()
	return s.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyCursor, v) })
}

// Check verifies the file's consistency (bbolt's page checks).
func (s *Store) Check() error {
	return s.view(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
}

// Export writes every sample as JSON lines.
func (s *Store) Export(w io.Writer) (int, error) {
	all, err := s.All()
	if err != nil {
		return 0, err
	}
	enc := json.NewEncoder(w)
	for _, sm := range all {
		if err := enc.Encode(sm); err != nil {
			return 0, err
		}
	}
	return len(all), nil
}

// Import reads JSON lines and adds them (idempotent).
func (s *Store) Import(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var batch []Sample
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var sm Sample
		if err := json.Unmarshal(sc.Bytes(), &sm); err != nil {
			return 0, fmt.Errorf("import line %d: %w", line, err)
		}
		batch = append(batch, sm)
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("import line %d: %w", line+1, err)
	}
	return s.Add(batch)
}
