package sim

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Hand-worked cases of the Capacity Scheduler's capacity arithmetic on a
// 100 GB default partition (CapacityScheduler.md; the queue capacity
// calculators).
func TestResolveCapacitiesEachMode(t *testing.T) {
	const p = schedconf.Prefix
	totals := map[string]rmweb.Resource{"": {MemoryMB: 102400, VCores: 100}}
	for _, tc := range []struct {
		name string
		conf schedconf.Conf
		abs  map[string]float64 // share of the partition
		max  map[string]float64
	}{
		{"percentage nested", schedconf.Conf{p + "root.queues": "a,b", p + "root.a.capacity": "60", p + "root.b.capacity": "40",
			p + "root.a.queues": "x,y", p + "root.a.x.capacity": "25", p + "root.a.y.capacity": "75", p + "root.a.x.maximum-capacity": "50"},
			// x = 0.6 × 0.25; its maximum is 50% of a's maximum (100%).
			map[string]float64{"root.a": 0.6, "root.b": 0.4, "root.a.x": 0.15, "root.a.y": 0.45}, map[string]float64{"root.a.x": 0.5}},
		{"weights nested", schedconf.Conf{p + "root.queues": "prod,dev", p + "root.prod.capacity": "3w", p + "root.dev.capacity": "1w",
			p + "root.prod.queues": "etl,reports", p + "root.prod.etl.capacity": "2w", p + "root.prod.reports.capacity": "1w",
			p + "root.dev.queues": "adhoc", p + "root.dev.adhoc.capacity": "5w"},
			// prod = 3/4; etl = 3/4 × 2/3 = 1/2; reports = 1/4; a lone weight child takes all of dev.
			map[string]float64{"root.prod": 0.75, "root.dev": 0.25, "root.prod.etl": 0.5, "root.prod.reports": 0.25, "root.dev.adhoc": 0.25}, nil},
		{"absolute within the parent", schedconf.Conf{p + "root.queues": "a,b", p + "root.a.capacity": "[memory=61440,vcores=60]",
			p + "root.b.capacity": "[memory=20480,vcores=20]", p + "root.a.queues": "x", p + "root.a.x.capacity": "[memory=30720,vcores=30]",
			p + "root.b.maximum-capacity": "[memory=51200,vcores=50]"},
			// a = 60 GB of 100; b = 20 GB; x = 30 GB (half of a's); b may grow to 50 GB.
			map[string]float64{"root.a": 0.6, "root.b": 0.2, "root.a.x": 0.3}, map[string]float64{"root.b": 0.5}},
		{"absolute children ask more than the parent has", schedconf.Conf{p + "root.queues": "a", p + "root.a.capacity": "[memory=40960,vcores=40]",
			p + "root.a.queues": "x,y", p + "root.a.x.capacity": "[memory=40960,vcores=40]", p + "root.a.y.capacity": "[memory=40960,vcores=40]"},
			// 80 GB asked of a's 40 GB: each scaled by 1/2 → 20 GB.
			map[string]float64{"root.a": 0.4, "root.a.x": 0.2, "root.a.y": 0.2}, nil},
	} {
		tree, err := schedconf.ParseTree(tc.conf)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		resolveCapacities(tree, totals)
		for q, want := range tc.abs {
			if got := tree.ByPath[q].AbsCapacity[""]; math.Abs(got-want) > 1e-9 {
				t.Errorf("%s: %s guaranteed %.4f of the partition, want %.4f", tc.name, q, got, want)
			}
		}
		for q, want := range tc.max {
			if got := tree.ByPath[q].AbsMaxCapacity[""]; math.Abs(got-want) > 1e-9 {
				t.Errorf("%s: %s maximum %.4f of the partition, want %.4f", tc.name, q, got, want)
			}
		}
	}
}
