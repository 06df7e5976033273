package yarn

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// TestPlanJobReads: which running jobs' AMs are read within the budget, in
// what order, and what every other app is left with.
func TestPlanJobReads(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	mr := func(id string, progress float64, containers int, tags ...string) cluster.App {
		return cluster.App{ID: id, Type: "MAPREDUCE", State: "RUNNING", Progress: progress, RunningContainers: containers, Tags: tags}
	}
	// read is a cache entry for app a as the RM showed it at; changed
	// makes the app's progress differ from it now.
	type read struct {
		id      string
		ago     time.Duration
		changed bool
	}
	for _, tc := range []struct {
		name   string
		apps   []cluster.App
		reads  []read
		budget int
		maxAge time.Duration
		want   []string                   // apps read, in order
		views  map[string]cluster.JobView // of the apps not read
		noConf []string                   // apps whose job conf is not cached: 3 requests
	}{
		{name: "budget respected: two requests per job, the never read first by containers held",
			apps:   []cluster.App{mr("a1", 10, 3), mr("a2", 10, 9), mr("a3", 10, 5), mr("a4", 10, 1)},
			budget: 5, want: []string{"a2", "a3"},
			views: map[string]cluster.JobView{"a1": cluster.JobEstimated, "a4": cluster.JobEstimated}},
		{name: "apps with a completion goal first, then never read, then the stalest",
			apps:   []cluster.App{mr("old", 50, 4), mr("older", 50, 4), mr("new", 1, 1), mr("goal", 50, 4, "deadline=2026-11-23T13:00:00Z")},
			reads:  []read{{"old", time.Minute, true}, {"older", 3 * time.Minute, true}, {"goal", 30 * time.Second, true}},
			budget: 6, want: []string{"goal", "new", "older"},
			views: map[string]cluster.JobView{"old": cluster.JobReused}},
		{name: "an unchanged app with a young read is reused for free, outside the budget",
			apps:   []cluster.App{mr("same", 50, 4), mr("moved", 50, 4)},
			reads:  []read{{"same", time.Minute, false}, {"moved", time.Minute, true}},
			budget: 2, want: []string{"moved"},
			views: map[string]cluster.JobView{"same": cluster.JobReused}},
		{name: "a read older than the max age is not reused: estimated",
			apps:   []cluster.App{mr("stale", 50, 4), mr("young", 50, 4), mr("never", 1, 1)},
			reads:  []read{{"stale", 10 * time.Minute, false}, {"young", time.Minute, true}},
			budget: 2, maxAge: 5 * time.Minute, want: []string{"never"},
			views: map[string]cluster.JobView{"stale": cluster.JobEstimated, "young": cluster.JobReused}},
		{name: "negative budget: every changed job read",
			apps:   []cluster.App{mr("a", 1, 1), mr("b", 2, 2), mr("c", 3, 3)},
			reads:  []read{{"a", time.Minute, false}},
			budget: -1, want: []string{"c", "b"},
			views: map[string]cluster.JobView{"a": cluster.JobReused}},
		{name: "zero budget (after defaults: no reads) leaves every app estimated or reused",
			apps:   []cluster.App{mr("a", 1, 1), mr("b", 2, 2)},
			reads:  []read{{"b", time.Minute, true}},
			budget: 0, want: []string{},
			views: map[string]cluster.JobView{"a": cluster.JobEstimated, "b": cluster.JobReused}},
		{name: "negative max age: no reuse at all",
			apps:   []cluster.App{mr("a", 1, 1), mr("b", 2, 2)},
			reads:  []read{{"a", time.Second, false}, {"b", time.Second, true}},
			budget: 2, maxAge: -1, want: []string{"b"},
			views: map[string]cluster.JobView{"a": cluster.JobEstimated}},
		{name: "a job whose conf is not cached costs three: 2+3 fit in 5, the next 3 does not, no skipping ahead",
			apps:   []cluster.App{mr("a1", 10, 9), mr("a2", 10, 5), mr("a3", 10, 3), mr("a4", 10, 1)},
			noConf: []string{"a2", "a3"},
			budget: 7, want: []string{"a1", "a2"},
			views: map[string]cluster.JobView{"a3": cluster.JobEstimated, "a4": cluster.JobEstimated}},
		{name: "apps that are not MapReduce are left alone",
			apps:   []cluster.App{{ID: "spark", Type: "SPARK", RunningContainers: 9}, mr("mr", 1, 1)},
			budget: 2, want: []string{"mr"},
			views: map[string]cluster.JobView{"spark": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c jobCache
			byID := map[string]int{}
			for i, a := range tc.apps {
				byID[a.ID] = i
			}
			for _, r := range tc.reads {
				a := tc.apps[byID[r.id]]
				if r.changed {
					a.Progress--
				}
				c.put(&a, now.Add(-r.ago), &cluster.Job{ID: "job_" + r.id, MapsTotal: 10, RunningMaps: []float64{0.5}})
			}
			apps := slices.Clone(tc.apps)
			confCached := func(a cluster.App) bool { return !slices.Contains(tc.noConf, a.ID) }
			idx := c.planJobReads(apps, now, tc.maxAge, tc.budget, nil, confCached)
			got := []string{}
			for _, i := range idx {
				got = append(got, apps[i].ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("read %v, want %v", got, tc.want)
			}
			cost := 0
			for _, i := range idx {
				cost += requestsPerJobRead
				if !confCached(apps[i]) {
					cost++
				}
			}
			if tc.budget >= 0 && cost > tc.budget {
				t.Fatalf("%d reads cost %d requests, over the budget %d", len(idx), cost, tc.budget)
			}
			for id, view := range tc.views {
				a := apps[byID[id]]
				if a.JobView != view {
					t.Errorf("%s: view %q, want %q", id, a.JobView, view)
				}
				switch view {
				case cluster.JobEstimated:
					if a.Job != nil || !a.JobReadAt.IsZero() || a.JobView.Exact() {
						t.Errorf("%s estimated but has a job %+v read at %v", id, a.Job, a.JobReadAt)
					}
				case cluster.JobReused:
					if a.Job == nil || a.Job.ID != "job_"+id || a.JobReadAt.IsZero() || !a.JobView.Exact() {
						t.Errorf("%s reused: job %+v read at %v", id, a.Job, a.JobReadAt)
					}
				}
			}
		})
	}
}

// TestJobCacheReuseCopies: a reused job is a copy, so a consumer writing
// to one snapshot's job does not change the next snapshot's.
func TestJobCacheReuseCopies(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var c jobCache
	a := cluster.App{ID: "a", Type: "MAPREDUCE", Progress: 5}
	c.put(&a, now, &cluster.Job{ID: "job_a", RunningMaps: []float64{0.25}})
	apps := []cluster.App{a}
	c.planJobReads(apps, now.Add(time.Second), 0, 0, nil, nil)
	apps[0].Job.RunningMaps[0] = 1
	again := []cluster.App{a}
	c.planJobReads(again, now.Add(2*time.Second), 0, 0, nil, nil)
	if again[0].Job.RunningMaps[0] != 0.25 {
		t.Fatalf("cached job changed through a snapshot: %v", again[0].Job.RunningMaps)
	}
}

// TestReduceCost: what reading an app's running reduces adds to its job
// read (Config.RunningReduces), from its last read, and that planJobReads
// counts it.
func TestReduceCost(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		on      bool
		running int // reduces running at the last read (-1: never read)
		known   int // of them, nodes already read
		want    int
	}{
		{"off: nothing", false, 3, 0, 0},
		{"never read: nothing known to plan for", true, -1, 0, 0},
		{"no reduce running", true, 0, 0, 0},
		{"three running, none located: the list and three attempts", true, 3, 0, 4},
		{"three running, two located: the list and one attempts", true, 3, 2, 2},
		{"all located: the list only", true, 3, 3, 1},
	} {
		c := jobCache{reduceReads: tc.on}
		a := cluster.App{ID: "app_1", Type: "MAPREDUCE", State: "RUNNING", Progress: 50, RunningContainers: 4}
		if tc.running >= 0 {
			c.put(&a, now.Add(-time.Minute), &cluster.Job{ID: "job_1", ReducesRunning: tc.running})
			a.Progress = 60 // changed since: read again
		}
		for k := range tc.known {
			c.putReduceNode("app_1", fmt.Sprintf("task_r_%d", k), "n1:8042")
		}
		if got := c.reduceCost("app_1"); got != tc.want {
			t.Errorf("%s: cost %d, want %d", tc.name, got, tc.want)
		}
		// A budget of exactly 2 + the cost reads the job; one less does not.
		for _, budget := range []int{2 + tc.want, 1 + tc.want} {
			apps := []cluster.App{a}
			read := c.planJobReads(apps, now, time.Hour, budget, nil, nil)
			if want := budget == 2+tc.want; (len(read) == 1) != want {
				t.Errorf("%s: budget %d read %v, want read %v", tc.name, budget, read, want)
			}
		}
		// The observe's reduce reads: the planned ones and what the
		// budget leaves (10 - 2 - cost), for reduces the last read did not
		// foresee.
		c.planJobReads([]cluster.App{a}, now, time.Hour, 10+tc.want, nil, nil)
		if c.allowance != tc.want+8 || !c.allowanceSet {
			t.Errorf("%s: reduce allowance %d (set %v), want %d", tc.name, c.allowance, c.allowanceSet, tc.want+8)
		}
	}
}
