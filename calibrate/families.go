package calibrate

import (
	"math"
	"sort"
	"strings"
)

// FamilySep separates a family from its member in a class name
// ("<family>/<member>"): a Spark app's class and one of its stages
// (sparkobs.StageClass, issue 36). Stages are calibrated apiece, since
// they are different kinds of work; the progress share of a running app
// needs one rate per node type for the app's class, which its family row
// gives.
const FamilySep = "/"

// GPUExecutorSuffix ends the executor type of a Spark executor holding
// GPUs on a node that has them ("gpu/gpu": sparkobs.ExecutorType). No node
// has such a type; the planner reads it for apps whose executors hold
// GPUs (sidecar's Spark GPU step).
const GPUExecutorSuffix = "/gpu"

// IsGPUExecutorType reports a GPU executor type.
func IsGPUExecutorType(typ string) bool { return strings.HasSuffix(typ, GPUExecutorSuffix) }

// addFamilies gives each family of member classes a row when the table
// has none of its own: on each node type, the geometric mean over the
// members known there and on the family's reference type of the member's
// ratio to that reference, weighted by the fewer of the two cells'
// samples. The family's reference is the node type with the most samples
// over its members, a GPU executor type ("<type>/gpu", GPUExecutorSuffix)
// only when no node type has any: an uncalibrated cell is taken as the
// reference's speed (progress.Rates), and that must be a CPU executor's,
// not a GPU's 3x (issue 36: spark-mixed's ml apps, mostly measured on GPU
// executors, had cpu-new taken as fast as a GPU). A family cell is known
// when its weights reach minSamples.
// Members whose speed-up differs by type blend by their samples: a stand-
// in for the app's own stage mix, which a running app's remaining work
// would weigh better.
func addFamilies(t *Table, minSamples int) {
	members := map[string][]string{}
	for class := range t.cells {
		if fam, _, ok := strings.Cut(class, FamilySep); ok && fam != "" {
			members[fam] = append(members[fam], class)
		}
	}
	for fam, ms := range members {
		if _, own := t.cells[fam]; own {
			continue
		}
		sort.Strings(ms)
		count := map[string]int{}
		for _, m := range ms {
			for typ, c := range t.cells[m] {
				if c.Known {
					count[typ] += c.Samples
				}
			}
		}
		ref := ""
		for typ, n := range count {
			if ref == "" || IsGPUExecutorType(ref) && !IsGPUExecutorType(typ) ||
				IsGPUExecutorType(ref) == IsGPUExecutorType(typ) && (n > count[ref] || n == count[ref] && typ < ref) {
				ref = typ
			}
		}
		if ref == "" {
			continue
		}
		row := map[string]Rate{}
		type acc struct{ logSum, lowSum, highSum, w float64 }
		accs := map[string]*acc{}
		for _, m := range ms {
			base, ok := t.cells[m][ref]
			if !ok || !base.Known || base.Ratio <= 0 {
				continue
			}
			for typ, c := range t.cells[m] {
				if !c.Known || c.Ratio <= 0 {
					continue
				}
				w := float64(min(c.Samples, base.Samples))
				a := accs[typ]
				if a == nil {
					a = &acc{}
					accs[typ] = a
				}
				a.logSum += w * math.Log(c.Ratio/base.Ratio)
				a.lowSum += w * math.Log(math.Max(c.Low, 1e-9)/base.Ratio)
				a.highSum += w * math.Log(math.Max(c.High, 1e-9)/base.Ratio)
				a.w += w
			}
		}
		for typ, a := range accs {
			r := Rate{Samples: int(a.w), Known: a.w >= float64(minSamples)}
			if a.w > 0 {
				r.Ratio, r.Low, r.High = math.Exp(a.logSum/a.w), math.Exp(a.lowSum/a.w), math.Exp(a.highSum/a.w)
			}
			row[typ] = r
		}
		t.cells[fam] = row
		t.reference[fam] = ref
	}
}
