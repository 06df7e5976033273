package act

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The daemon reads first the jobs of apps with a completion goal: a
// deadline tag or an SLO for their class.
func TestHasGoal(t *testing.T) {
	classOf := func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }
	first := HasGoal(classOf, map[string]time.Duration{"etl": time.Hour})
	for _, tc := range []struct {
		tags []string
		want bool
	}{
		{[]string{"deadline=+90m"}, true},
		{[]string{"jobclass=etl"}, true},
		{[]string{"jobclass=adhoc"}, false},
		{nil, false},
		{[]string{"deadline=soon"}, false}, // unreadable: no goal (the report says why)
	} {
		if got := first(cluster.App{ID: "a", Tags: tc.tags}); got != tc.want {
			t.Errorf("tags %v: first %v, want %v", tc.tags, got, tc.want)
		}
	}
}
