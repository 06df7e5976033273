package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The JobHistory row (issue 19): requests the learner sends per finished
// 1,000-map job. Before: every succeeded task's attempts and every map
// attempt's counters (HistoryTasksPerJob < 0, what the client did until
// issue 19); after: the default sample of 64 tasks per type. The
// calibration-relevant figure — the mean map time on the GPU node over
// the CPU node (lee-gpu: crypto truly runs 2× faster there) — is given
// for both, from the same job.
func init() {
	register(Bench{Area: "jobhistory", Order: 22, Run: benchJobHistory, Rows: 1})
}

// historyRequests counts the JobHistory REST requests a handler serves.
type historyRequests struct {
	h http.Handler
	n atomic.Int64
}

func (c *historyRequests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/ws/v1/history/") {
		c.n.Add(1)
	}
	c.h.ServeHTTP(w, r)
}

func benchJobHistory(Options) ([]Row, error) {
	sc, err := sim.LoadScenario("lee-gpu")
	if err != nil {
		return nil, err
	}
	job := sc.Jobs[0] // crypto
	job.Maps, job.Reduces = 1000, 10
	sc.Jobs = []sim.JobSpec{job}
	c, err := sim.NewCluster(sc, 1)
	if err != nil {
		return nil, err
	}
	if !c.RunUntilDone(24 * time.Hour) {
		return nil, fmt.Errorf("the 1,000-map job did not finish")
	}
	counter := &historyRequests{h: c.Handler()}
	srv := httptest.NewServer(counter)
	defer srv.Close()
	read := func(perType int) (int64, float64, int, time.Duration, error) {
		cl, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, HistoryTasksPerJob: perType, Timeout: time.Minute})
		if err != nil {
			return 0, 0, 0, 0, err
		}
		n0 := counter.n.Load()
		start := time.Now()
		jobs, err := cl.FinishedJobs(context.Background(), time.Time{})
		wall := time.Since(start)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		if len(jobs) != 1 {
			return 0, 0, 0, 0, fmt.Errorf("%d finished jobs, want 1", len(jobs))
		}
		// The learner places attempts by host; lee-gpu's hosts are cpu-… and gpu-….
		sum := map[string]float64{}
		cnt := map[string]int{}
		maps := 0
		for _, a := range jobs[0].Job.Attempts {
			if a.Type != cluster.TaskMap || !a.Succeeded() || a.Speculative {
				continue
			}
			maps++
			typ, _, _ := strings.Cut(a.NodeHTTPAddress, "-")
			sum[typ] += a.Elapsed.Seconds()
			cnt[typ]++
		}
		ratio := 0.0
		if cnt["gpu"] > 0 && cnt["cpu"] > 0 {
			ratio = (sum["cpu"] / float64(cnt["cpu"])) / (sum["gpu"] / float64(cnt["gpu"]))
		}
		return counter.n.Load() - n0, ratio, maps, wall, nil
	}
	allN, allRatio, allMaps, allWall, err := read(-1)
	if err != nil {
		return nil, err
	}
	sN, sRatio, sMaps, sWall, err := read(0)
	if err != nil {
		return nil, err
	}
	return []Row{{Area: "jobhistory", Name: fmt.Sprintf("JobHistory requests to learn one finished 1,000-map, 10-reduce job (GPU/CPU map speed read: %.3f from %d maps sampled, %.3f from all %d; true 2.0)", sRatio, sMaps, allRatio, allMaps),
		Figure:   fmt.Sprintf("%d requests (%s)", sN, sWall.Round(time.Millisecond)),
		Baseline: fmt.Sprintf("%d requests (%s), every task and map counter", allN, allWall.Round(time.Millisecond)),
		Ratio:    fmt.Sprintf("%.1f× fewer", float64(allN)/float64(sN)), Goal: "≥10× fewer"}}, nil
}
