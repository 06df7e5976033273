package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives every test (and every binary a test starts) a state
// directory of its own: the default would be /var/lib/yarn-sidecar for
// root or the user's ~/.local/state, which tests must never touch.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "yarn-sidecar-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("STATE_DIRECTORY", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
