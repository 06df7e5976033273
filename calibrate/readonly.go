package calibrate

import (
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrReadOnly is returned by a write to a history opened with OpenReadOnly.
var ErrReadOnly = errors.New("calibration history opened read-only")

// ErrLocked: a running sidecar holds the history (bbolt's lock).
var ErrLocked = errors.New("a running sidecar holds it")

// Empty is a read-only history with nothing in it (what OpenReadOnly
// returns for a missing file).
func Empty() *Store { return &Store{} }

// OpenReadOnly opens a history for reading only, for the commands that
// write nothing anywhere (plan, deadlines, status, report, calibrate
// without --backfill or --import): it never creates the file, its
// directory or a bucket, and every write returns ErrReadOnly. A history
// that does not exist yet reads as empty. bbolt's shared lock cannot be
// taken while a running sidecar holds the file: the error wraps ErrLocked
// and says to read that daemon's state instead.
func OpenReadOnly(path string) (*Store, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return &Store{}, nil
	} else if err != nil {
		return nil, fmt.Errorf("open calibration history %s: %w", path, err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("open calibration history %s read-only: %w; read that daemon's state with `yarn-sidecar status --from ADDRESS` (its listen address)", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open calibration history %s read-only: %w", path, err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return nil
		}
		if v := meta.Get(keyVersion); v != nil && string(v) != fmt.Sprint(schemaVersion) {
			return fmt.Errorf("schema version %s is not this binary's %d", v, schemaVersion)
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("calibration history %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// view runs fn in a read transaction; a history that does not exist
// (OpenReadOnly of a missing file) has nothing to read and fn is not run.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	if s.db == nil {
		return nil
	}
	return s.db.View(fn)
}

// update runs fn in a write transaction, or returns ErrReadOnly.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	if s.db == nil || s.db.IsReadOnly() {
		return ErrReadOnly
	}
	return s.db.Update(fn)
}
