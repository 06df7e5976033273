package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
)

// The observe rows (issue 4): one Snapshot of scale-10k (10,000 nodes, 200
// queues, thousands of running apps) through the REST client over loopback
// HTTP, in the state the cluster reaches after 30 simulated minutes.
// Baseline, same run and same server: fetching the RM documents the
// snapshot needs (nodes, scheduler, running apps) and decoding them into
// map[string]any, as a script would — without the per-app container
// listings the snapshot also reads.
func init() {
	register(Bench{Area: "observe", Order: 20, Run: benchObserve, Rows: 2})
}

func benchObserve(o Options) ([]Row, error) {
	sc, err := sim.LoadScenario("scale-10k")
	if err != nil {
		return nil, err
	}
	c, err := warmCluster(o, sc)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, Timeout: time.Minute, MaxResponseBytes: 1 << 30})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var nodes, apps, containers int
	snapM, err := measure(func() error {
		s, err := client.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
		if err != nil {
			return err
		}
		nodes, apps = len(s.Nodes), len(s.RunningApps())
		for _, a := range s.Apps {
			for _, n := range a.ContainersByNode {
				containers += n
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("observe scale-10k: %w", err)
	}
	// The next cycle, 30 s later: apps whose containers did not change keep
	// their placements (yarn.ObserveOptions.PlacementMaxAge).
	c.RunUntil(c.Now().Add(30 * time.Second))
	warmM, err := measure(func() error {
		s, err := client.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
		if err != nil {
			return err
		}
		_ = s
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("observe scale-10k again: %w", err)
	}
	var bytes int64
	rawM, err := measure(func() error {
		for _, path := range []string{"/ws/v1/cluster/nodes", "/ws/v1/cluster/scheduler", "/ws/v1/cluster/apps?states=RUNNING"} {
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				return err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			bytes += int64(len(body))
			var v map[string]any
			if err := json.Unmarshal(body, &v); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []Row{
		{Area: "observe", Name: fmt.Sprintf("Snapshot of scale-10k: %d nodes, %d running apps, %d containers located per node", nodes, apps, containers),
			Figure:   fmt.Sprintf("%s, %.0f MiB heap", snapM.Wall.Round(time.Millisecond), mib(snapM.PeakHeap)),
			Baseline: fmt.Sprintf("%s, %.0f MiB (3 RM documents, %.0f MiB, into map[string]any)", rawM.Wall.Round(time.Millisecond), mib(rawM.PeakHeap), float64(bytes)/(1<<20)),
			Ratio:    fmt.Sprintf("%.1f× time, %.1f× heap", snapM.Wall.Seconds()/rawM.Wall.Seconds(), float64(snapM.PeakHeap)/float64(rawM.PeakHeap)),
			Goal:     "≤0.5 s, ≤256 MiB"},
		{Area: "observe", Name: "the next snapshot, 30 s later (placements of unchanged apps reused)",
			Figure:   fmt.Sprintf("%s, %.0f MiB heap", warmM.Wall.Round(time.Millisecond), mib(warmM.PeakHeap)),
			Baseline: fmt.Sprintf("%s, %.0f MiB (3 RM documents into map[string]any)", rawM.Wall.Round(time.Millisecond), mib(rawM.PeakHeap)),
			Ratio:    fmt.Sprintf("%.1f× time, %.1f× heap", warmM.Wall.Seconds()/rawM.Wall.Seconds(), float64(warmM.PeakHeap)/float64(rawM.PeakHeap)),
			Goal:     "≤0.5 s, ≤256 MiB"},
	}, nil
}
