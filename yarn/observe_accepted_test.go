package yarn

import (
	"slices"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestSplitAccepted(t *testing.T) {
	apps := []cluster.App{{ID: "r1", State: cluster.AppRunning}, {ID: "a1", State: cluster.AppAccepted}, {ID: "r2", State: cluster.AppRunning}, {ID: "a2", State: cluster.AppAccepted}}
	run, acc := splitAccepted(apps)
	ids := func(as []cluster.App) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	if !slices.Equal(ids(run), []string{"r1", "r2"}) || !slices.Equal(ids(acc), []string{"a1", "a2"}) {
		t.Errorf("running %v, accepted %v; want r1 r2 and a1 a2 in order", ids(run), ids(acc))
	}
	if run, acc := splitAccepted(nil); run != nil && len(run) != 0 || acc != nil {
		t.Errorf("no apps: %v %v", run, acc)
	}
}
