package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
)

// -heldout-ablate takes the decide steps' own names, each once; a name
// no step has is refused before anything runs.
func TestAblateNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"route gain", []string{"route gain"}, ""},
		{"route gain, goal route,restores", []string{"route gain", "goal route", "restores"}, ""},
		{"route-gain", nil, `no decide step named "route-gain"`},
		{"restores,restores", nil, "named twice"},
		{"restores,", nil, "empty step name"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ablateNames(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ablateNames(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

// The heldout summary prints heldout's declared default rows, and the
// ablation one row per step, its figures beside the full sidecar's.
func TestHeldoutAndAblateRows(t *testing.T) {
	names, classes := []string{"a", "b", "c", "d"}, []string{"x", "y"}
	out := []clusterOutcome{{seed: 1}, {seed: 2}}
	for k := range out {
		out[k].stock = synthetic(names, classes, 100, false)
		out[k].static = synthetic(names, classes, 90, false)
		out[k].side = synthetic(names, classes, 80, false)
		out[k].ablated = map[string]experiment.Result{"restores": synthetic(names, classes, 120, false)}
	}
	rows := heldoutRows("tuning", out, time.Second, time.Second)
	want := 0
	for _, b := range benches {
		if b.Area == "heldout" {
			want = b.Rows
		}
	}
	if got := len(shown(rows, false)); got != want {
		t.Errorf("%d default heldout rows, heldout declares %d", got, want)
	}
	ab := ablateRows("tuning", out, []string{"restores"})
	if len(ab) != 1 {
		t.Fatalf("%d ablation rows, want 1", len(ab))
	}
	for _, s := range []string{`without step "restores"`, "mean 1.200× stock", "full sidecar", "mean 0.800× stock"} {
		if !strings.Contains(ab[0].Name+ab[0].Figure+ab[0].Baseline, s) {
			t.Errorf("ablation row lacks %q: %+v", s, ab[0])
		}
	}
	if ablateRows("tuning", out, nil) != nil {
		t.Error("rows without -heldout-ablate")
	}
}
