package sidecar

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// FirstSeen remembers what the admin configured for each queue when the
// sidecar first saw it: the guarantee bands are relative to it, and the PS
// weights of unlisted queues are its default-partition absolute capacity.
// It is persisted (a small JSON file next to the calibration store) so a
// restart does not re-baseline to the sidecar's own writes. A queue removed
// and re-added by the admin keeps its first value until the file is deleted.
type FirstSeen struct {
	// Path of the JSON file; empty keeps it in memory only (tests, the
	// simulator).
	Path string
	// ReadOnly reads the file but never writes it (the read-only
	// commands): what they see first lives in memory only.
	ReadOnly bool

	mu     sync.Mutex
	loaded bool
	dirty  bool
	seen   map[string]SeenValue // queue + "\x00" + partition
}

// SeenValue is one queue's first-seen capacity in one partition; it lives
// with the decision that reads it (sidecar/decide).
type SeenValue = decide.SeenValue

func seenKey(queue, partition string) string { return decide.SeenKey(queue, partition) }

// load reads the file once; a missing file is an empty history.
func (f *FirstSeen) load() error {
	if f.loaded {
		return nil
	}
	f.loaded = true
	f.seen = map[string]SeenValue{}
	if f.Path == "" {
		return nil
	}
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read first-seen capacities %s: %w", f.Path, err)
	}
	var raw map[string]SeenValue
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("first-seen capacities %s are not valid JSON (delete the file to re-baseline to the live configuration): %w", f.Path, err)
	}
	for k, v := range raw {
		q, p, _ := strings.Cut(k, "|")
		f.seen[seenKey(q, p)] = v
	}
	return nil
}

// Observe records every queue's current capacities that have no first
// value yet, and returns the first values of all queues.
func (f *FirstSeen) Observe(tree *schedconf.Tree) (map[string]SeenValue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.load(); err != nil {
		return nil, err
	}
	if decide.RecordSeen(f.seen, tree) {
		f.dirty = true
	}
	out := make(map[string]SeenValue, len(f.seen))
	for k, v := range f.seen {
		out[k] = v
	}
	return out, nil
}

// MarkUnset records that the admin configured nothing for these queues in
// a partition (one the sidecar is about to create), before the sidecar's
// own first values appear there.
func (f *FirstSeen) MarkUnset(partition string, queues []string) error {
	f.mu.Lock()
	if err := f.load(); err != nil {
		f.mu.Unlock()
		return err
	}
	for _, q := range queues {
		for node := q; node != "" && node != "root"; node = parentPath(node) {
			k := seenKey(node, partition)
			if _, ok := f.seen[k]; !ok {
				f.seen[k] = SeenValue{Unset: true}
				f.dirty = true
			}
		}
	}
	f.mu.Unlock()
	return f.Save()
}

// parentPath is a queue path's parent ("root.a.b" → "root.a").
func parentPath(q string) string {
	if i := strings.LastIndex(q, "."); i >= 0 {
		return q[:i]
	}
	return ""
}

// Save writes the file when something new was seen (atomically: a temp
// file renamed over the old one).
func (f *FirstSeen) Save() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.dirty || f.Path == "" || f.ReadOnly {
		return nil
	}
	out := map[string]SeenValue{}
	keys := make([]string, 0, len(f.seen))
	for k, v := range f.seen {
		q, p, _ := strings.Cut(k, "\x00")
		out[q+"|"+p] = v
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return fmt.Errorf("first-seen capacities: %w", err)
	}
	if err := act.WriteFileAtomic(f.Path, b, 0o644); err != nil {
		return fmt.Errorf("write first-seen capacities: %w", err)
	}
	f.dirty = false
	return nil
}
