package deadline

import (
	"fmt"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Goal is a job's completion-time goal.
type Goal struct {
	Deadline time.Time
	Source   string // "tag" or "slo"
}

// GoalOf reads an app's goal: the tag deadline=<RFC3339> or deadline=+90m
// (relative to submission), else the class's SLO ("within 2h of submit").
// A malformed tag is an error naming it.
func GoalOf(a cluster.App, class string, slos map[string]time.Duration) (Goal, bool, error) {
	if v, ok := a.Tag("deadline"); ok {
		if rel, ok := strings.CutPrefix(v, "+"); ok {
			d, err := time.ParseDuration(rel)
			if err != nil || d <= 0 {
				return Goal{}, false, fmt.Errorf("app %s: tag deadline=%s: want an RFC 3339 time or +duration (e.g. +90m)", a.ID, v)
			}
			return Goal{Deadline: a.StartedTime.Add(d), Source: "tag"}, true, nil
		}
		t, err := time.Parse(time.RFC3339, strings.ToUpper(v))
		if err != nil {
			return Goal{}, false, fmt.Errorf("app %s: tag deadline=%s: want an RFC 3339 time or +duration (e.g. +90m)", a.ID, v)
		}
		return Goal{Deadline: t, Source: "tag"}, true, nil
	}
	if d, ok := slos[class]; ok && d > 0 {
		return Goal{Deadline: a.StartedTime.Add(d), Source: "slo"}, true, nil
	}
	return Goal{}, false, nil
}
