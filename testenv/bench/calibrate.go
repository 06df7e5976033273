package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The calibrate rows (issue 6): ingesting 1,000,000 map attempts into the
// durable history (bbolt, one transaction per finished job of 1,000
// attempts, as the learner writes), and the CR table over them with node
// types of a 10,000-node cluster. Baseline for ingest, same run: appending
// the same attempts as JSON lines with one fsync per job — the cheapest
// durable log a hand-rolled store could be.
func init() {
	register(Bench{Area: "calibrate", Order: 40, Run: benchCalibrate, Rows: 2})
}

func benchCalibrate(o Options) ([]Row, error) {
	total, perJob := 1_000_000, 1000
	if o.Quick {
		total = 100_000
	}
	dir, err := os.MkdirTemp("", "yarn-sidecar-bench-calibrate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	// 10,000 nodes of 4 types; 20 classes with a true ratio per type.
	types := []string{"cpu-old", "cpu-new", "gpu", "storage"}
	nodes := make([]cluster.Node, 10_000)
	for i := range nodes {
		t := i % len(types)
		nodes[i] = cluster.Node{ID: fmt.Sprintf("n%05d:8041", i), Host: fmt.Sprintf("n%05d", i),
			Total: cluster.Resource{MemoryMB: int64(65536 * (1 + t%2)), VCores: int64(16 * (1 + t%2)), GPUs: int64(4 * (t / 2 % 2))}}
	}
	rng := rand.New(rand.NewSource(1))
	truth := map[string]map[string]float64{}
	batch := func(j int) []calibrate.Sample {
		class := fmt.Sprintf("class%02d", j%20)
		if truth[class] == nil {
			truth[class] = map[string]float64{}
			for _, t := range types {
				truth[class][t] = 0.5 + 2*rng.Float64()
			}
		}
		out := make([]calibrate.Sample, perJob)
		for k := range out {
			t := types[rng.Intn(len(types))]
			sec := 60 / truth[class][t] * math.Exp(0.1*rng.NormFloat64())
			out[k] = calibrate.Sample{AttemptID: fmt.Sprintf("attempt_1_%07d_m_%06d_0", j, k), JobID: fmt.Sprintf("job_1_%07d", j),
				Class: class, NodeType: t, Finish: time.Unix(int64(j*600+k), 0), Elapsed: time.Duration(sec * float64(time.Second)),
				Bytes: 128 << 20, Type: "MAP"}
		}
		return out
	}
	jobs := total / perJob
	batches := make([][]calibrate.Sample, jobs)
	for j := range batches {
		batches[j] = batch(j)
	}

	store, err := calibrate.Open(filepath.Join(dir, "history.db"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	ingest, err := measure(func() error {
		for _, b := range batches {
			if _, err := store.Add(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	jsonl, err := measure(func() error {
		f, err := os.Create(filepath.Join(dir, "history.jsonl"))
		if err != nil {
			return err
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		enc := json.NewEncoder(w)
		for _, b := range batches {
			for _, s := range b {
				if err := enc.Encode(s); err != nil {
					return err
				}
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if err := f.Sync(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	batches = nil
	var table *calibrate.Table
	var worst float64
	est, err := measure(func() error {
		typeOf := calibrate.Classifier{}.Types(nodes)
		if len(typeOf) < len(nodes) {
			return fmt.Errorf("classified %d of %d nodes", len(typeOf), len(nodes))
		}
		all, err := store.All()
		if err != nil {
			return err
		}
		table = calibrate.Estimate(all, calibrate.Options{Reference: map[string]string{"*": "cpu-old"}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for class, tr := range truth {
		for _, t := range types {
			r, ok := table.Ratio(class, t)
			if !ok {
				return nil, fmt.Errorf("%s on %s unknown after %d attempts", class, t, total)
			}
			worst = math.Max(worst, math.Abs(r/(tr[t]/tr["cpu-old"])-1))
		}
	}
	rate := float64(total) / ingest.Wall.Seconds()
	base := float64(total) / jsonl.Wall.Seconds()
	return []Row{
		{Area: "calibrate", Name: fmt.Sprintf("ingest %d attempts into the bbolt history (%d jobs, one transaction each)", total, jobs),
			Figure:   fmt.Sprintf("%.0f attempts/s, %.0f MiB heap", rate, mib(ingest.PeakHeap)),
			Baseline: fmt.Sprintf("%.0f attempts/s, %.0f MiB (JSON lines + fsync per job)", base, mib(jsonl.PeakHeap)),
			Ratio:    fmt.Sprintf("%.2f× speed", rate/base)},
		{Area: "calibrate", Name: fmt.Sprintf("CR table: node types of 10,000 nodes + read and estimate %d attempts, 20 classes × 4 types", total),
			Figure: fmt.Sprintf("%s, %.0f MiB heap", est.Wall.Round(time.Millisecond), mib(est.PeakHeap)),
			Ratio:  fmt.Sprintf("worst ratio error %.1f%%", 100*worst), Goal: "ratios within 5% of truth"},
	}, nil
}
