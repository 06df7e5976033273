package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// nestedWeightTree is an admin's hand-written nested tree (issue 35): two
// parents in weight mode, three leaves under dev, two under prod, every
// queue with access to the gpu partition. The flat sweep wrote leaf
// percentages across parents and crashed on it ("Illegal capacity sum of
// 0.67 for children of queue dev for label=gpu").
const nestedWeightTree = "testdata/nested-hand.yaml"

// asMode rewrites the tree's gpu capacities into percentages (per parent,
// summing to 100) or absolute resources, for the same test in each mode.
func asMode(t *testing.T, mode schedconf.Mode) *sim.Scenario {
	t.Helper()
	sc, err := sim.LoadScenario(nestedWeightTree)
	if err != nil {
		t.Fatal(err)
	}
	gpu := map[string][2]string{ // percent, absolute (the partition: 16384 MB, 8 vcores)
		"root.prod": {"50", "[memory=8192,vcores=4]"}, "root.dev": {"50", "[memory=8192,vcores=4]"},
		"root.prod.etl": {"50", "[memory=4096,vcores=2]"}, "root.prod.reports": {"50", "[memory=4096,vcores=2]"},
		"root.dev.adhoc": {"34", "[memory=2048,vcores=1]"}, "root.dev.ml": {"33", "[memory=2048,vcores=1]"}, "root.dev.test": {"33", "[memory=2048,vcores=1]"},
	}
	for q, v := range gpu {
		switch mode {
		case schedconf.ModePercentage:
			sc.Conf[schedconf.Key(q, "accessible-node-labels.gpu.capacity")] = v[0]
		case schedconf.ModeAbsolute:
			sc.Conf[schedconf.Key(q, "accessible-node-labels.gpu.capacity")] = v[1]
		}
	}
	if err := schedconf.Validate(schedconf.Conf(sc.Conf)); err != nil {
		t.Fatalf("the test's %s tree: %v", mode, err)
	}
	return sc
}

// The sweep on a nested tree, in each of the tree's own modes: every
// member valid, each sibling group written in its mode, and the routed
// leaf's share of the partition what the member's name says.
func TestStaticFamilyNestedTree(t *testing.T) {
	for _, mode := range []schedconf.Mode{schedconf.ModeWeight, schedconf.ModePercentage, schedconf.ModeAbsolute} {
		t.Run(string(mode), func(t *testing.T) {
			sc := asMode(t, mode)
			fam, err := StaticFamily(sc)
			if err != nil {
				t.Fatalf("StaticFamily: %v", err)
			}
			// stock + 5 leaves × 3 shares + the 2×3 pairs across parents.
			if len(fam) != 1+5*3+6 {
				t.Errorf("%d members, want 22", len(fam))
			}
			base := schedconf.Conf(sc.Conf)
			// The leaf's share of the partition each member gives it; weights
			// cannot say none (1w), so a routed leaf gets a little less.
			want := map[string]struct {
				leaf  string
				share float64
			}{
				"adhoc→gpu 75%":       {"root.dev.adhoc", 0.75},
				"etl→gpu 50%":         {"root.prod.etl", 0.50},
				"test→gpu 100%":       {"root.dev.test", 1.00},
				"adhoc+etl→gpu 50/50": {"root.dev.adhoc", 0.50},
			}
			seen := 0
			for _, f := range fam[1:] {
				to, err := base.Apply(*f.Mutation)
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				if err := schedconf.Validate(to); err != nil {
					t.Errorf("%s: %v", f.Name, err)
				}
				for k, v := range to {
					if strings.HasSuffix(k, ".accessible-node-labels.gpu.capacity") && k != schedconf.Prefix+"root.accessible-node-labels.gpu.capacity" {
						if got, _ := schedconf.ParseCapacity(v); got.Mode != mode {
							t.Errorf("%s: %s = %q, not in the tree's %s mode", f.Name, k, v, mode)
						}
					}
				}
				w, ok := want[f.Name]
				if !ok {
					continue
				}
				seen++
				tree, err := schedconf.ParseTree(to)
				if err != nil {
					t.Fatal(err)
				}
				got := tree.ByPath[w.leaf].AbsCapacity["gpu"]
				tol := 0.001
				if mode == schedconf.ModeWeight {
					tol = 0.03
				}
				if mode == schedconf.ModeAbsolute {
					got = absoluteShare(to, w.leaf, 16384)
				}
				if math.Abs(got-w.share) > tol {
					t.Errorf("%s: %s has %.3f of the partition, want %.2f", f.Name, w.leaf, got, w.share)
				}
				if to[schedconf.Key(w.leaf, "default-node-label-expression")] != "gpu" {
					t.Errorf("%s: %s not routed to gpu", f.Name, w.leaf)
				}
			}
			if seen != len(want) {
				t.Errorf("found %d of the members %v", seen, want)
			}
		})
	}
}

// absoluteShare is a queue's absolute gpu memory over the partition's.
func absoluteShare(c schedconf.Conf, q string, total int64) float64 {
	v, _ := schedconf.ParseCapacity(c[schedconf.Key(q, "accessible-node-labels.gpu.capacity")])
	return float64(v.Absolute["memory"]) / float64(total)
}

// The shipped nested trees' sweeps: valid in each mode.
func TestStaticFamilyShippedNested(t *testing.T) {
	for _, name := range []string{"nested-weights", "nested-percent", "nested-absolute"} {
		sc, err := sim.LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		fam, err := StaticFamily(sc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(fam) != 1+4*3+4 {
			t.Errorf("%s: %d configurations, want stock + 12 single routes + 4 pairs", name, len(fam))
		}
	}
}
