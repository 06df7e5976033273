package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// benchSparkRequests: Spark REST requests per cycle with 1,000 Spark apps
// running at once (issue 36's goal: within the budget, at most one
// request per app per cycle on average). A built scenario: 1,000 small
// Spark apps submitted in the first minute on 400 nodes, long enough that
// all run together; ten cycles observed once all 1,000 run.
func benchSparkRequests(o Options) ([]Row, error) {
	apps := 1000
	if o.Quick {
		apps = 200
	}
	sc, err := sim.ParseScenario([]byte(fmt.Sprintf(`
name: spark-1000
noise_sigma: 0.1
node_types:
  - {name: cpu, count: %d, memory_mb: 65536, vcores: 16}
classes:
  - name: q
    spark:
      executors: 2
      executor_cores: 2
      executor_memory_mb: 4096
      stages:
        - {name: "scan at Q.scala:1", task_seconds: 600}
        - {name: "agg at Q.scala:2", task_seconds: 60, tasks: 0.5}
conf:
  yarn.scheduler.capacity.root.queues: "default"
  yarn.scheduler.capacity.root.default.capacity: "100"
  yarn.scheduler.capacity.maximum-am-resource-percent: "1.0"
jobs:
  - {at: 0s, class: q, queue: default, maps: 8, repeat: %d, every: 50ms}
`, apps*2/5, apps)), "spark-1000")
	if err != nil {
		return nil, err
	}
	h, err := newSparkHarness(sc, 1)
	if err != nil {
		return nil, err
	}
	defer h.close()
	dir, err := os.MkdirTemp("", "yarn-sidecar-bench-spark-req-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	store, err := calibrate.Open(filepath.Join(dir, "history.db"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	ctx := context.Background()
	obs := sparkobs.New(h.sc, nil)
	classOf := calibrate.ClassKey("tag").ClassOf
	var requests, maxReq, running, cycles int
	var wall time.Duration
	for i := 0; i < 40 && cycles < 10; i++ {
		h.c.Step(30 * time.Second)
		list, err := h.yc.Apps(ctx, "RUNNING")
		if err != nil {
			return nil, err
		}
		start := time.Now()
		cy := obs.Observe(ctx, h.c.Now(), list, h.nodes, sparkobs.Options{ClassOf: classOf})
		took := time.Since(start)
		if len(cy.Errors) > 0 {
			return nil, cy.Errors[0]
		}
		if len(list) < apps {
			continue // not all running yet: the first reads cost more
		}
		cycles++
		requests += cy.Requests
		maxReq = max(maxReq, cy.Requests)
		running += len(list)
		wall += took
	}
	if cycles == 0 {
		return nil, fmt.Errorf("spark-1000: never %d apps running at once", apps)
	}
	perApp := float64(requests) / float64(running)
	return []Row{{Area: "spark", Name: fmt.Sprintf("%d Spark apps running: REST requests per 30 s cycle (%d cycles once all ran; budget %d)", apps, cycles, sparkobs.DefaultBudget),
		Figure:   fmt.Sprintf("%.0f mean, %d max; %.2f per app per cycle; %s wall per cycle", float64(requests)/float64(cycles), maxReq, perApp, (wall / time.Duration(cycles)).Round(time.Millisecond)),
		Baseline: "1 request per app per cycle", Ratio: fmt.Sprintf("%.2f", perApp), Goal: "within the budget, ≤1 per app"}}, nil
}
