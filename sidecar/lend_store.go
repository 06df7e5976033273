package sidecar

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
)

// LendStore keeps the calibration lend under way (step_replay_lend.go)
// beside the history, so a daemon restarted during a lend still brings
// the node back to its partition instead of lending another. A nil store
// keeps it in memory only (experiments).
type LendStore struct {
	Path string
	// ReadOnly (plan, status): loaded, never written.
	ReadOnly bool
}

// Load reads the lend; none when the file does not exist.
func (s *LendStore) Load() (decide.ReplayLend, error) {
	var l decide.ReplayLend
	if s == nil || s.Path == "" {
		return l, nil
	}
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("read calibration lend %s: %w", s.Path, err)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("calibration lend %s is not valid JSON (put the node named in the audit log's last lend back in its partition, then delete the file): %w", s.Path, err)
	}
	return l, nil
}

// Save writes the lend atomically.
func (s *LendStore) Save(l decide.ReplayLend) error {
	if s == nil || s.Path == "" || s.ReadOnly {
		return nil
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o755); err != nil {
		return fmt.Errorf("calibration lend: %w", err)
	}
	if err := act.WriteFileAtomic(s.Path, b, 0o644); err != nil {
		return fmt.Errorf("write calibration lend %s: %w", s.Path, err)
	}
	return nil
}
