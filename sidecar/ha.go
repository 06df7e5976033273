package sidecar

import (
	"strings"
	"time"
)

// HAConfig runs two or more sidecars with one writer: leader election
// through ZooKeeper (sidecar/leader). The standby observes, decides and
// serves /metrics and /report like the leader, but every cycle of it is a
// dry run; it takes over when the leader's ZooKeeper session ends.
type HAConfig struct {
	// ZooKeeper is the ensemble, host:port each (the RM HA one will do).
	ZooKeeper []string `yaml:"zookeeper"`
	// Path is the election znode (default /yarn-sidecar/leader).
	Path string `yaml:"path"`
	// SessionTimeout is the lease: how long a dead leader keeps it. The
	// standby writes within SessionTimeout + one cycle of the leader's
	// death; default: the cycle interval, so within two intervals.
	SessionTimeout time.Duration `yaml:"session_timeout"`
}

// Defaults fills what the config left out.
func (h *HAConfig) Defaults(interval time.Duration) {
	if h.Path == "" {
		h.Path = "/yarn-sidecar/leader"
	}
	if h.SessionTimeout == 0 {
		h.SessionTimeout = interval
	}
}

func (h *HAConfig) validate() [][2]string {
	var bad [][2]string
	if len(h.ZooKeeper) == 0 {
		bad = append(bad, [2]string{"zookeeper", "list at least one host:port"})
	}
	if h.Path != "" && !strings.HasPrefix(h.Path, "/") {
		bad = append(bad, [2]string{"path", "must be an absolute znode path, got " + h.Path})
	}
	if h.SessionTimeout < 0 {
		bad = append(bad, [2]string{"session_timeout", "must not be negative"})
	}
	return bad
}
