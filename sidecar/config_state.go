package sidecar

import (
	"errors"
	"path/filepath"
	"strings"
)

// The state directory. The calibration history, the audit log and the
// admin's first-seen capacities live in one absolute directory, so a
// command run from any working directory reads the same state and the
// admin's baseline is never re-taken from the sidecar's own writes (a
// relative store once landed in each command's working directory, and
// `status` run elsewhere took the sidecar's 19.8% for the admin's 15%).

// DefaultStateDir is the state directory when the config names none:
// $STATE_DIRECTORY (set by systemd's StateDirectory=; the first of a
// colon-separated list), else /var/lib/yarn-sidecar for root, else
// $XDG_STATE_HOME/yarn-sidecar, else ~/.local/state/yarn-sidecar (the XDG
// base-directory default). getenv and euid are the process's (injected for
// tests); home is the user's home directory ("" if unknown).
func DefaultStateDir(getenv func(string) string, euid int, home string) (string, error) {
	if d, _, _ := strings.Cut(getenv("STATE_DIRECTORY"), ":"); filepath.IsAbs(d) {
		return filepath.Clean(d), nil
	}
	if euid == 0 {
		return "/var/lib/yarn-sidecar", nil
	}
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) { // a relative one is ignored, as the spec says
		return filepath.Join(x, "yarn-sidecar"), nil
	}
	if home == "" {
		return "", errors.New("no state directory: set state_dir in the config (or $XDG_STATE_HOME); the home directory is unknown")
	}
	return filepath.Join(home, ".local", "state", "yarn-sidecar"), nil
}

// ResolveState fills StateDir when empty (DefaultStateDir) and makes the
// store and audit-log paths absolute against it. Call it once, after
// flags override the file.
func (c *Config) ResolveState(getenv func(string) string, euid int, home string) error {
	if c.StateDir == "" {
		d, err := DefaultStateDir(getenv, euid, home)
		if err != nil {
			return err
		}
		c.StateDir = d
	}
	if !filepath.IsAbs(c.StateDir) {
		return &ConfigError{Fields: []string{"state_dir: " + c.StateDir + " must be an absolute path"}}
	}
	for _, p := range []*string{&c.Store, &c.AuditLog} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(c.StateDir, *p)
		}
	}
	return nil
}

// FirstSeenPath is where the admin's first-seen capacities are kept: next
// to the calibration history.
func (c *Config) FirstSeenPath() string { return c.Store + ".first-seen.json" }

// LendPath is where the replay strategy's calibration lend under way is
// kept (LendStore), beside the history.
func (c *Config) LendPath() string { return c.Store + ".lend.json" }

// RunsLabelLayout says whether the loop runs the PS label layout: node-label
// changes are allowed and the strategy is not replay, whose only label
// change is its calibration lend (step_replay_lend.go).
func (c *Config) RunsLabelLayout() bool {
	return c.Safety.AllowNodeLabelChanges && c.Plan.Strategy != StrategyReplay
}
