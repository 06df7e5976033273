// Package gen draws mini-cluster scenarios (sim.Scenario) that nobody here
// wrote or tuned for (issue 32): node generations and GPU kinds with their
// sizes, node labels exclusive or not, flat and nested queue trees in the
// three capacity modes (percent, weights, absolute resources), the admin's
// own routing (default-node-label-expression), job classes whose speed per
// node type is drawn from a profile (gains on GPUs, gains on one GPU kind
// only, gains on newer CPUs, gains nowhere, I/O-bound, loses on the GPU
// hosts' CPUs), mixes that move over the run, deadlines, and a cluster load
// from idle to saturated. A seed fixes the cluster; the same seed always
// gives the same scenario.
//
// It is a STAND-IN for clusters admins run: the profiles are drawn from
// ranges chosen to cover the shapes issue 32 lists, not measured on any
// real cluster. The tuning and held-out seed sets are declared here
// (TuningSeeds, HeldOutSeeds) so a change tuned on one is judged on the
// other.
package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// TuningSeeds are the clusters a change may be tuned on.
func TuningSeeds(n int) []int64 { return seedRange(1, n) }

// TuningSeedsAfter are n tuning clusters after the first skip: fresh
// tuning clusters to look for a failure on without touching the held-out
// set. It stops short of the held-out seeds.
func TuningSeedsAfter(skip, n int) []int64 {
	if skip+n > 1000 {
		n = max(0, 1000-skip)
	}
	return seedRange(1+int64(skip), n)
}

// HeldOutSeeds are the clusters a change is judged on (never tuned on).
func HeldOutSeeds(n int) []int64 { return seedRange(1001, n) }

func seedRange(first int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = first + int64(i)
	}
	return out
}

// Mode is how a generated tree writes its capacities.
type Mode string

// The three capacity modes of the Capacity Scheduler.
const (
	Percent  Mode = "percent"
	Weight   Mode = "weight"
	Absolute Mode = "absolute"
)

// Options bound what Generate draws (zero values: the defaults).
type Options struct {
	// Duration is how long jobs keep arriving (default 75 min).
	Duration time.Duration
	// MaxJobs caps the jobs of a cluster (default 120): larger loads get
	// larger jobs instead of more of them.
	MaxJobs int
	// MaxMaps caps the map tasks of a cluster (default 15,000) so a run
	// stays quick: a load that would need more is lowered (Info.Load says
	// the load drawn after the cap).
	MaxMaps int
}

// Profile is how a class's speed varies over node types.
type Profile string

// The class profiles drawn.
const (
	GPUAll   Profile = "gpu"     // gains on every GPU kind
	GPUOne   Profile = "gpu-one" // gains on one GPU kind only
	CPUBound Profile = "cpu"     // gains on newer CPU generations
	Flat     Profile = "flat"    // gains nowhere
	IOBound  Profile = "io"      // short compute, input reads dominate
	LosesGPU Profile = "loses"   // slower on the GPU hosts' CPUs
)

// Info says what was drawn, for the bench rows.
type Info struct {
	Seed     int64
	Nodes    int
	Mode     Mode
	Nested   bool
	Labels   int
	Routed   string // the leaf the admin routes to a label ("" none)
	Load     float64
	Profiles map[string]Profile // class → profile
}

// String is one line describing the cluster.
func (i Info) String() string {
	tree := "flat"
	if i.Nested {
		tree = "nested"
	}
	var ps []string
	for c, p := range i.Profiles {
		ps = append(ps, c+":"+string(p))
	}
	sort.Strings(ps)
	r := ""
	if i.Routed != "" {
		r = ", routes " + i.Routed
	}
	return fmt.Sprintf("%d nodes, %d labels, %s %s tree%s, load %.1f, classes %s", i.Nodes, i.Labels, tree, i.Mode, r, i.Load, strings.Join(ps, " "))
}

type queue struct {
	name     string
	path     string
	children []*queue
	def      float64            // share of the parent, default partition
	label    map[string]float64 // share of the parent per label
}

type gpuKind struct {
	name  string
	label string
	host  float64 // the GPU host's CPU speed against the first generation
}

// Generate draws the scenario of a seed.
func Generate(seed int64, o Options) (*sim.Scenario, Info, error) {
	if o.Duration == 0 {
		o.Duration = 75 * time.Minute
	}
	if o.MaxJobs == 0 {
		o.MaxJobs = 120
	}
	if o.MaxMaps == 0 {
		o.MaxMaps = 15000
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed32))
	info := Info{Seed: seed, Profiles: map[string]Profile{}}
	sc := &sim.Scenario{Name: fmt.Sprintf("gen-%d", seed), Seed: seed, MaxAppPriority: 10, NoiseSigma: 0.1, Racks: 2 + r.IntN(3),
		Description: fmt.Sprintf("generated cluster, seed %d (testenv/gen)", seed)}

	// Nodes: one to three CPU generations, newer ones faster for CPU-bound work.
	gens := 1 + r.IntN(3)
	cpuSpeed := map[string]float64{}
	for g := 0; g < gens; g++ {
		name := fmt.Sprintf("cpu-g%d", g+1)
		vc := int64([]int{8, 16}[r.IntN(2)])
		sc.NodeTypes = append(sc.NodeTypes, sim.NodeTypeSpec{Name: name, Count: 3 + r.IntN(6), MemoryMB: vc * 2048, VCores: vc})
		cpuSpeed[name] = 1 + float64(g)*(0.15+0.2*r.Float64())
	}
	// GPU kinds: none, one or two; each its own label, or one shared label.
	kinds := []int{0, 1, 1, 1, 2, 2}[r.IntN(6)]
	shared := kinds == 2 && r.IntN(3) == 0
	var gpus []gpuKind
	for k := 0; k < kinds; k++ {
		name := []string{"gpu-a", "gpu-b"}[k]
		label := name
		if shared {
			label = "gpu"
		}
		if k == 0 || !shared {
			sc.Labels = append(sc.Labels, sim.LabelSpec{Name: label, Exclusive: r.IntN(4) == 0})
		}
		dn := r.IntN(3) == 0 // compute-only (no DataNode) two times in three
		sc.NodeTypes = append(sc.NodeTypes, sim.NodeTypeSpec{Name: name, Count: 2 + r.IntN(3), MemoryMB: 65536, VCores: 16, GPUs: 4, Label: label, DataNode: &dn})
		gpus = append(gpus, gpuKind{name: name, label: label, host: 0.8 + 0.5*r.Float64()})
	}
	slots := 0
	for _, nt := range sc.NodeTypes {
		info.Nodes += nt.Count
		slots += nt.Count * int(min(nt.MemoryMB/2048, nt.VCores))
	}
	info.Labels = len(sc.Labels)

	// Classes and their speed per node type.
	nClasses := 3 + r.IntN(3)
	profiles := []Profile{GPUAll, GPUOne, CPUBound, Flat, IOBound, LosesGPU}
	type class struct {
		spec    sim.ClassSpec
		profile Profile
		weight  [2]float64 // share of the work in each half of the run
		work    float64    // container-seconds of a mean job
		maps    [2]int
		reduces int
		dl      float64
	}
	var classes []class
	for i := 0; i < nClasses; i++ {
		p := profiles[r.IntN(len(profiles))]
		if len(gpus) == 0 && (p == GPUAll || p == GPUOne || p == LosesGPU) {
			p = []Profile{CPUBound, Flat}[r.IntN(2)]
		}
		name := fmt.Sprintf("c%d-%s", i+1, p)
		c := class{profile: p, spec: sim.ClassSpec{Name: name, MapSeconds: 40 + 120*r.Float64(), ShuffleSeconds: 5 + 20*r.Float64(), ReduceSeconds: 10 + 50*r.Float64(), Speed: map[string]float64{}}}
		for t, s := range cpuSpeed {
			switch p {
			case CPUBound:
				c.spec.Speed[t] = round2(s)
			case GPUAll, GPUOne:
				c.spec.Speed[t] = round2(math.Sqrt(s))
			}
		}
		best := r.IntN(max(len(gpus), 1))
		for k, g := range gpus {
			switch p {
			case GPUAll:
				c.spec.Speed[g.name] = round2(2 + 4*r.Float64())
			case GPUOne:
				if k == best {
					c.spec.Speed[g.name] = round2(2 + 2*r.Float64())
				} else {
					c.spec.Speed[g.name] = round2(0.7 + 0.3*r.Float64())
				}
			case CPUBound:
				c.spec.Speed[g.name] = round2(g.host)
			case IOBound:
				c.spec.Speed[g.name] = 1
			case LosesGPU:
				c.spec.Speed[g.name] = round2(0.5 + 0.4*r.Float64())
			}
		}
		if p == IOBound {
			// Little compute per block: the read (128 MB at 80-400 MB/s)
			// is a large part of each map, and compute-only nodes read
			// every block off-switch.
			c.spec.MapSeconds = 8 + 8*r.Float64()
		}
		c.spec.MapSeconds = round2(c.spec.MapSeconds)
		c.spec.ShuffleSeconds = round2(c.spec.ShuffleSeconds)
		c.spec.ReduceSeconds = round2(c.spec.ReduceSeconds)
		lo := 10 + r.IntN(40)
		c.maps = [2]int{lo, lo + 20 + r.IntN(120)}
		c.reduces = 1 + r.IntN(6)
		c.weight = [2]float64{0.2 + r.Float64(), 0.2 + r.Float64()}
		if r.IntN(3) == 0 { // a class that only runs in one half: the mix moves
			c.weight[r.IntN(2)] = 0
		}
		c.dl = []float64{0, 0, 0.2, 0.3}[r.IntN(4)]
		c.work = float64(c.maps[0]+c.maps[1])/2*(c.spec.MapSeconds+2) + float64(c.reduces)*(c.spec.ReduceSeconds+c.spec.ShuffleSeconds)
		sc.Classes = append(sc.Classes, c.spec)
		info.Profiles[name] = p
		classes = append(classes, c)
	}

	// The queue tree: 3-5 leaves, flat or under two parents.
	var labels []string
	for _, l := range sc.Labels {
		labels = append(labels, l.Name)
	}
	nLeaves := 3 + r.IntN(3)
	info.Nested = r.IntN(2) == 0
	info.Mode = []Mode{Percent, Weight, Absolute}[r.IntN(3)]
	root := &queue{name: "root", path: "root"}
	leafNames := []string{"etl", "bi", "ml", "adhoc", "reports"}
	var leaves []*queue
	if info.Nested {
		prod := &queue{name: "prod", path: "root.prod"}
		research := &queue{name: "research", path: "root.research"}
		root.children = []*queue{prod, research}
		for i := 0; i < nLeaves; i++ {
			p := root.children[i%2]
			q := &queue{name: leafNames[i], path: p.path + "." + leafNames[i]}
			p.children = append(p.children, q)
			leaves = append(leaves, q)
		}
	} else {
		for i := 0; i < nLeaves; i++ {
			q := &queue{name: leafNames[i], path: "root." + leafNames[i]}
			root.children = append(root.children, q)
			leaves = append(leaves, q)
		}
	}
	// Shares: drawn integer weights per sibling group; the routed leaf
	// (if any) gets most of its label.
	var routedLabel string
	routed := -1
	if len(labels) > 0 && r.IntN(2) == 0 {
		// The admin routes the queue of a GPU class if there is one.
		for i, c := range classes {
			if (c.profile == GPUAll || c.profile == GPUOne) && routed < 0 {
				routed = i % nLeaves
			}
		}
		if routed < 0 {
			routed = r.IntN(nLeaves)
		}
		routedLabel = labels[r.IntN(len(labels))]
		info.Routed = leaves[routed].path + "→" + routedLabel
	}
	var draw func(q *queue)
	draw = func(q *queue) {
		if len(q.children) == 0 {
			return
		}
		dw := make([]int, len(q.children))
		lw := map[string][]int{}
		for i, c := range q.children {
			dw[i] = 1 + r.IntN(4)
			for _, l := range labels {
				w := 1 + r.IntN(4)
				if routed >= 0 && l == routedLabel && contains(c, leaves[routed]) {
					w = 12
				}
				lw[l] = append(lw[l], w)
			}
		}
		for i, c := range q.children {
			c.def = float64(dw[i]) / float64(sum(dw))
			c.label = map[string]float64{}
			for _, l := range labels {
				c.label[l] = float64(lw[l][i]) / float64(sum(lw[l]))
			}
			draw(c)
		}
	}
	draw(root)
	totals := partitionTotals(sc)
	sc.Conf = conf(root, labels, info.Mode, totals)
	sc.Conf["yarn.scheduler.capacity.maximum-am-resource-percent"] = "0.2"
	if routed >= 0 {
		sc.Conf["yarn.scheduler.capacity."+leaves[routed].path+".default-node-label-expression"] = routedLabel
	}

	// Arrivals: the cluster's load × its slots × the run's length is the
	// work offered, split among the classes by their weights in each half.
	info.Load = []float64{0.2, 0.5, 0.8, 1.0, 1.3}[r.IntN(5)]
	half := o.Duration / 2
	perHalf := [2]float64{}
	for _, c := range classes {
		perHalf[0] += c.weight[0]
		perHalf[1] += c.weight[1]
	}
	offered := info.Load * float64(slots) * half.Seconds()
	jobs := 0.0
	for _, c := range classes {
		for h := 0; h < 2; h++ {
			if perHalf[h] > 0 {
				jobs += offered * c.weight[h] / perHalf[h] / c.work
			}
		}
	}
	maps := 0.0
	for _, c := range classes {
		for h := 0; h < 2; h++ {
			if perHalf[h] > 0 {
				maps += offered * c.weight[h] / perHalf[h] / c.work * float64(c.maps[0]+c.maps[1]) / 2
			}
		}
	}
	if maps > float64(o.MaxMaps) {
		f := float64(o.MaxMaps) / maps
		offered *= f
		jobs *= f
		info.Load *= f
	}
	scale := 1.0 // larger jobs rather than more of them
	if jobs > float64(o.MaxJobs) {
		scale = jobs / float64(o.MaxJobs)
	}
	for i, c := range classes {
		q := leaves[i%nLeaves]
		for h := 0; h < 2; h++ {
			if c.weight[h] == 0 || perHalf[h] == 0 {
				continue
			}
			n := int(math.Round(offered * c.weight[h] / perHalf[h] / c.work / scale))
			if n == 0 {
				continue
			}
			lo, hi := int(float64(c.maps[0])*scale), int(float64(c.maps[1])*scale)
			sc.Generators = append(sc.Generators, sim.GeneratorSpec{Class: c.spec.Name, Queue: q.path, User: q.name, Count: n,
				Start: time.Duration(h) * half, MeanGap: (half / time.Duration(n)).Round(time.Second), MapsMin: lo, MapsMax: hi,
				Reduces: c.reduces, DeadlineProb: c.dl})
		}
	}
	if len(sc.Generators) == 0 {
		c := classes[0]
		sc.Generators = append(sc.Generators, sim.GeneratorSpec{Class: c.spec.Name, Queue: leaves[0].path, Count: 1, MeanGap: time.Minute, MapsMin: c.maps[0], MapsMax: c.maps[1], Reduces: c.reduces})
	}
	out, err := roundTrip(sc)
	if err != nil {
		return nil, info, fmt.Errorf("generated cluster %d: %w", seed, err)
	}
	return out, info, nil
}

// roundTrip checks the scenario as sim checks a file (defaults, validation).
func roundTrip(sc *sim.Scenario) (*sim.Scenario, error) {
	data, err := yaml.Marshal(sc)
	if err != nil {
		return nil, err
	}
	return sim.ParseScenario(data, sc.Name)
}

func contains(q, leaf *queue) bool {
	if q == leaf {
		return true
	}
	for _, c := range q.children {
		if contains(c, leaf) {
			return true
		}
	}
	return false
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

type resources struct{ mem, vcores int64 }

// partitionTotals are each partition's resources ("" the default one).
func partitionTotals(sc *sim.Scenario) map[string]resources {
	out := map[string]resources{}
	for _, nt := range sc.NodeTypes {
		t := out[nt.Label]
		t.mem += int64(nt.Count) * nt.MemoryMB
		t.vcores += int64(nt.Count) * nt.VCores
		out[nt.Label] = t
	}
	return out
}

// conf writes the tree's properties in one mode. Percentages of a sibling
// group are whole numbers summing to 100; absolute resources are the
// partition's total times the queue's share of it, rounded down so the
// children never exceed their parent.
func conf(root *queue, labels []string, mode Mode, totals map[string]resources) map[string]string {
	out := map[string]string{}
	p := "yarn.scheduler.capacity."
	out[p+"root.accessible-node-labels"] = "*"
	for _, l := range labels {
		out[p+"root.accessible-node-labels."+l+".capacity"] = "100"
	}
	var walk func(q *queue, abs map[string]float64)
	walk = func(q *queue, abs map[string]float64) {
		if len(q.children) == 0 {
			return
		}
		var names []string
		for _, c := range q.children {
			names = append(names, c.name)
		}
		out[p+q.path+".queues"] = strings.Join(names, ",")
		parts := append([]string{""}, labels...)
		for _, part := range parts {
			shares := make([]float64, len(q.children))
			for i, c := range q.children {
				if part == "" {
					shares[i] = c.def
				} else {
					shares[i] = c.label[part]
				}
			}
			vals := write(shares, mode, abs[part], totals[part])
			for i, c := range q.children {
				key, max := p+c.path+".capacity", p+c.path+".maximum-capacity"
				if part != "" {
					key, max = p+c.path+".accessible-node-labels."+part+".capacity", p+c.path+".accessible-node-labels."+part+".maximum-capacity"
				}
				out[key] = vals[i]
				out[max] = "100"
				if mode == Absolute {
					t := totals[part]
					out[max] = fmt.Sprintf("[memory=%d,vcores=%d]", t.mem, t.vcores)
				}
			}
		}
		for _, c := range q.children {
			if len(labels) > 0 {
				out[p+c.path+".accessible-node-labels"] = strings.Join(labels, ",")
			}
			if len(c.children) == 0 {
				out[p+c.path+".user-limit-factor"] = "10"
			}
			child := map[string]float64{}
			for _, part := range parts {
				share := c.def
				if part != "" {
					share = c.label[part]
				}
				child[part] = abs[part] * share
			}
			walk(c, child)
		}
	}
	all := map[string]float64{"": 1}
	for _, l := range labels {
		all[l] = 1
	}
	walk(root, all)
	return out
}

// write renders a sibling group's shares (summing to 1) of a partition.
func write(shares []float64, mode Mode, parentFrac float64, total resources) []string {
	out := make([]string, len(shares))
	switch mode {
	case Weight:
		for i, s := range shares {
			out[i] = strconv.Itoa(max(1, int(math.Round(s*100)))) + "w"
		}
	case Absolute:
		for i, s := range shares {
			out[i] = fmt.Sprintf("[memory=%d,vcores=%d]", int64(math.Floor(s*parentFrac*float64(total.mem))), int64(math.Floor(s*parentFrac*float64(total.vcores))))
		}
	default:
		left := 100
		for i, s := range shares {
			v := int(math.Round(s * 100))
			if i == len(shares)-1 {
				v = left
			}
			left -= v
			out[i] = strconv.Itoa(v)
		}
	}
	return out
}
