// Package testutil holds the few helpers tests in several packages share:
// waiting on a condition with a deadline (never a bare sleep) and a buffer
// a test can read while a process writes to it.
package testutil

import (
	"bytes"
	"sync"
	"time"
)

// Poll checks cond every interval until it holds or timeout passes, and
// reports whether it held.
func Poll(timeout, every time.Duration, cond func() bool) bool {
	deadline := time.After(timeout)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			return false
		case <-tick.C:
		}
	}
	return true
}

// SyncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
