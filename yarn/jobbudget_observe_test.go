package yarn_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// amCounter serves a mini cluster, counting requests to AMs (through the
// RM's /proxy/) and answering for gone's AM as a real RM does once the
// app's AM exited (404), with JobHistory answering for its job instead.
type amCounter struct {
	h        http.Handler
	am       atomic.Int64
	gone     string // app id whose AM is gone; "" none
	goneHist atomic.Int64
	mu       sync.Mutex
	confs    map[string]int // conf requests per path, AM or JobHistory
}

func (m *amCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/conf") {
		m.mu.Lock()
		if m.confs == nil {
			m.confs = map[string]int{}
		}
		m.confs[r.URL.Path]++
		m.mu.Unlock()
	}
	if strings.HasPrefix(r.URL.Path, "/proxy/") {
		m.am.Add(1)
		if m.gone != "" && strings.HasPrefix(r.URL.Path, "/proxy/"+m.gone+"/") {
			http.Error(w, "Application "+m.gone+" could not be found", http.StatusNotFound)
			return
		}
	}
	if job := "job_" + strings.TrimPrefix(m.gone, "application_"); m.gone != "" && r.URL.Path == "/ws/v1/history/mapreduce/jobs/"+job {
		m.goneHist.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"job":{"id":"` + job + `","name":"gone","state":"SUCCEEDED","startTime":1,"finishTime":2,` +
			`"mapsTotal":4,"mapsCompleted":4,"reducesTotal":1,"reducesCompleted":1}}`))
		return
	}
	if job := "job_" + strings.TrimPrefix(m.gone, "application_"); m.gone != "" && r.URL.Path == "/ws/v1/history/mapreduce/jobs/"+job+"/conf" {
		w.Header().Set("Content-Type", "application/json") // data-heavy's map size
		w.Write([]byte(`{"conf":{"path":"x","property":[{"name":"mapreduce.map.memory.mb","value":"2048"},{"name":"mapreduce.map.cpu.vcores","value":"1"}]}}`))
		return
	}
	m.h.ServeHTTP(w, r)
}

// TestObserveJobBudget: over two cycles on a mini cluster running at
// least 8 MapReduce apps, observe sends no more AM requests than the budget (a
// job's first read costs three: its conf too), reads the apps it never
// read first, marks the others, reads each job's conf once for its map
// size, and still falls back to JobHistory for an app whose AM is gone.
func TestObserveJobBudget(t *testing.T) {
	for _, tc := range []struct {
		name             string
		budget           int
		goneAM           bool
		wantFresh        [2]int // per cycle
		wantAM           [2]int64
		wantMinEstimated int // first cycle
		everyApp         bool
	}{
		{name: "budget of 6 requests: 2 new jobs a cycle (job, tasks, conf)", budget: 6, wantFresh: [2]int{2, 2}, wantAM: [2]int64{6, 6}, wantMinEstimated: 6},
		{name: "budget of 7 requests: the seventh buys no job", budget: 7, wantFresh: [2]int{2, 2}, wantAM: [2]int64{6, 6}, wantMinEstimated: 6},
		// everyApp: wantFresh is every running app and wantAM three
		// requests each (less one for the app whose AM is gone).
		{name: "no bound: every job, 3 requests each the first time", budget: -1, everyApp: true, wantAM: [2]int64{0, -1}},
		{name: "an app whose AM is gone: JobHistory, two AM requests (job, conf)", budget: -1, goneAM: true, everyApp: true, wantAM: [2]int64{-1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := sim.LoadScenario("data-heavy")
			if err != nil {
				t.Fatal(err)
			}
			c, err := sim.NewCluster(sc, 1)
			if err != nil {
				t.Fatal(err)
			}
			// 14 minutes in, 11 apps run (AMs only in the default
			// partition, as the RM places them).
			c.RunUntil(c.Now().Add(14 * time.Minute))
			cls := sc.Classes[0] // both of data-heavy's classes take the default map size
			wantMap := cluster.Resource{MemoryMB: cls.MapMemoryMB, VCores: cls.MapVCores, GPUs: cls.MapGPUs}
			m := &amCounter{h: c.Handler()}
			srv := httptest.NewServer(m)
			defer srv.Close()
			client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if running, err := client.Apps(ctx, "RUNNING"); err != nil || len(running) < 8 {
				t.Fatalf("apps: %v; %d running, want at least 8 for the budgets to bind", err, len(running))
			} else if tc.everyApp {
				tc.wantFresh[0] = len(running)
				tc.wantAM[0] = int64(3 * len(running))
				if tc.goneAM {
					tc.wantAM[0]--
				}
			}
			if tc.goneAM {
				apps, err := client.Apps(ctx, "RUNNING")
				if err != nil || len(apps) == 0 {
					t.Fatalf("apps: %v %d", err, len(apps))
				}
				m.gone = apps[0].ID
			}
			readBefore := map[string]bool{}
			for cycle := range 2 {
				if tc.wantAM[cycle] < 0 {
					break
				}
				m.am.Store(0)
				snap, err := client.Observe(ctx, yarn.ObserveOptions{Now: c.Now(), Jobs: true, JobBudget: tc.budget})
				if err != nil {
					t.Fatal(err)
				}
				if len(snap.Errors) > 0 {
					t.Fatalf("cycle %d: load errors %+v", cycle, snap.Errors)
				}
				views := map[cluster.JobView]int{}
				var reread []string
				for _, a := range snap.RunningApps() {
					views[a.JobView]++
					switch a.JobView {
					case cluster.JobFresh:
						if a.Job == nil || !a.JobReadAt.Equal(snap.Time) {
							t.Errorf("cycle %d: %s fresh without a job read now: %+v at %v", cycle, a.ID, a.Job, a.JobReadAt)
						}
						if a.Job != nil && a.Job.ContainerSize != wantMap {
							t.Errorf("cycle %d: %s map size %+v, want the class's %+v", cycle, a.ID, a.Job.ContainerSize, wantMap)
						}
						if _, goal := a.Tag("deadline"); cycle == 1 && readBefore[a.ID] && !goal {
							reread = append(reread, a.ID)
						}
						readBefore[a.ID] = true
					case cluster.JobReused:
						if a.Job == nil || !a.JobReadAt.Before(snap.Time) {
							t.Errorf("cycle %d: %s reused: %+v at %v", cycle, a.ID, a.Job, a.JobReadAt)
						}
					case cluster.JobEstimated:
						if a.Job != nil {
							t.Errorf("cycle %d: %s estimated with a job %+v", cycle, a.ID, a.Job)
						}
					default:
						t.Errorf("cycle %d: %s: job view %q", cycle, a.ID, a.JobView)
					}
					if a.ID == m.gone && (a.JobView != cluster.JobFresh || a.Job.Name != "gone" || a.Job.State != "SUCCEEDED") {
						t.Errorf("%s (AM gone): %q job %+v, want JobHistory's", a.ID, a.JobView, a.Job)
					}
				}
				if len(reread) > 0 && views[cluster.JobEstimated] > 0 {
					t.Errorf("cycle 1: %v read again while %d apps never read waited", reread, views[cluster.JobEstimated])
				}
				if got := m.am.Load(); got != tc.wantAM[cycle] {
					t.Errorf("cycle %d: %d AM requests, want %d", cycle, got, tc.wantAM[cycle])
				}
				if tc.budget >= 0 && m.am.Load() > int64(tc.budget) {
					t.Errorf("cycle %d: %d AM requests over the budget %d", cycle, m.am.Load(), tc.budget)
				}
				if views[cluster.JobFresh] != tc.wantFresh[cycle] {
					t.Errorf("cycle %d: views %v, want %d fresh", cycle, views, tc.wantFresh[cycle])
				}
				if cycle == 0 && views[cluster.JobEstimated] < tc.wantMinEstimated {
					t.Errorf("cycle 0: views %v, want at least %d estimated", views, tc.wantMinEstimated)
				}
				c.RunUntil(c.Now().Add(30 * time.Second))
			}
			for path, n := range m.confs {
				if n != 1 {
					t.Errorf("%s asked %d times, want once per job", path, n)
				}
			}
			if tc.goneAM && m.goneHist.Load() != 1 {
				t.Errorf("JobHistory asked %d times for the app whose AM is gone", m.goneHist.Load())
			}
		})
	}
}
