package main

import (
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The mini cluster's own speed (issue 3): one simulated hour of hetero-100,
// of the same cluster ten times larger (1,000 nodes, ten times the jobs),
// and of scale-10k; simulated seconds per wall second and the heap it
// held. Baseline: real time (1×) — YARN's Scheduler Load Simulator replays
// in real time.
func init() {
	register(Bench{Area: "mini cluster", Order: 10, Run: benchMiniCluster, Rows: 3})
}

func benchMiniCluster(o Options) ([]Row, error) {
	var rows []Row
	hour := time.Hour
	for _, name := range []string{"hetero-100", "hetero-1000", "scale-10k"} {
		sc, err := scenarioFor(name)
		if err != nil {
			return nil, err
		}
		span := hour
		if o.Quick && name == "scale-10k" {
			span = 10 * time.Minute
		}
		var c *sim.Cluster
		m, err := measure(func() error {
			var err error
			c, err = sim.NewCluster(sc, 1)
			if err != nil {
				return err
			}
			c.RunUntil(c.Now().Add(span))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		speed := span.Seconds() / m.Wall.Seconds()
		nodes := 0
		for _, nt := range sc.NodeTypes {
			nodes += nt.Count
		}
		rows = append(rows, Row{Area: "mini cluster", Name: fmt.Sprintf("%s (%d nodes, %d jobs submitted): %s simulated", name, nodes, len(c.Results()), span),
			Figure:   fmt.Sprintf("%.0f sim-s/s (%s wall, %.0f MiB heap)", speed, m.Wall.Round(time.Millisecond), mib(m.PeakHeap)),
			Baseline: "1 sim-s/s (real time, as SLS)", Ratio: fmt.Sprintf("%.0f×", speed), Goal: "≥1000× at 1,000 nodes"})
	}
	return rows, nil
}

// scenarioFor loads a shipped scenario; hetero-1000 is hetero-100 with ten
// times the nodes of each type and ten times the jobs arriving ten times
// as often (the same load per node).
func scenarioFor(name string) (*sim.Scenario, error) {
	if name != "hetero-1000" {
		return sim.LoadScenario(name)
	}
	base, err := sim.LoadScenario("hetero-100")
	if err != nil {
		return nil, err
	}
	sc := *base
	sc.Name = "hetero-1000"
	sc.NodeTypes = append([]sim.NodeTypeSpec(nil), base.NodeTypes...)
	for i := range sc.NodeTypes {
		sc.NodeTypes[i].Count *= 10
	}
	sc.Generators = append([]sim.GeneratorSpec(nil), base.Generators...)
	for i := range sc.Generators {
		sc.Generators[i].Count *= 10
		sc.Generators[i].MeanGap /= 10
	}
	return &sc, nil
}
