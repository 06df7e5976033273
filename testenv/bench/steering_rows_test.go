package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// synthetic is one run of jobs named and classed as given, each taking
// secs, with a goal when goals is set.
func synthetic(names, classes []string, secs float64, goals bool) experiment.Result {
	t0 := time.Unix(1_700_000_000, 0)
	var r experiment.Result
	for i, n := range names {
		j := sim.JobResult{Name: n, Class: classes[i%len(classes)], Submit: t0, Finish: t0.Add(time.Duration(secs * float64(time.Second)))}
		if goals {
			d := t0.Add(time.Hour)
			j.Deadline = &d
		}
		r.Jobs = append(r.Jobs, j)
	}
	return r
}

// The steering rows print, without -candidates, the counts steering's
// Bench.Rows adds up (lee-gpu 6, lee-toy 7, hetero-100 8, fb-2009 7): one
// row per goal, the per-class breakdowns, day 2 and the figures no goal
// reads behind -candidates. The scenarios' shapes (two named jobs; many
// jobs with a second day, with goals or without) are what decides it.
func TestSteeringDefaultRows(t *testing.T) {
	many := func(n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("job%d", i))
		}
		return s
	}
	total := 0
	for _, tc := range []struct {
		sc        string
		names     []string
		classes   []string
		secondDay bool
		goals     bool
		want      int
	}{
		{"lee-gpu", []string{"crypto", "sort"}, []string{"crypto", "sort"}, false, false, 6},
		{"lee-toy", []string{"A", "B"}, []string{"A", "B"}, false, false, 7},
		{"hetero-100", many(20), []string{"crypto", "sort", "train", "report"}, true, true, 8},
		{"fb-2009", many(20), []string{"fb-large", "fb-small", "fb-tiny"}, true, false, 7},
	} {
		t.Run(tc.sc, func(t *testing.T) {
			runs := &experiment.Comparison{Scenario: tc.sc, StaticName: "stock"}
			for range 2 {
				runs.Stock = append(runs.Stock, synthetic(tc.names, tc.classes, 100, tc.goals))
				runs.Static = append(runs.Static, synthetic(tc.names, tc.classes, 90, tc.goals))
				runs.Sidecar = append(runs.Sidecar, synthetic(tc.names, tc.classes, 80, tc.goals))
				if tc.secondDay {
					runs.Sidecar2 = append(runs.Sidecar2, synthetic(tc.names, tc.classes, 80, tc.goals))
				}
			}
			rows, err := steeringRows(tc.sc, runs)
			if err != nil {
				t.Fatal(err)
			}
			got := len(shown(rows, false))
			total += got
			if got != tc.want {
				for _, r := range shown(rows, false) {
					t.Log(r.Name)
				}
				t.Errorf("%d default rows, want %d", got, tc.want)
			}
			if len(shown(rows, true)) <= got {
				t.Errorf("no Detail rows behind -candidates")
			}
		})
	}
	for _, b := range benches {
		if b.Area == "steering" && b.Rows != total {
			t.Errorf("steering declares %d default rows, its scenarios print %d", b.Rows, total)
		}
	}
}
