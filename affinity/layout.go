package affinity

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// This file lays out node-label partitions: which node types deserve a
// label of their own and which nodes carry it. It is CAM's data-placement
// flow (digest 004 §5, Table 3) with classes for datasets and node types
// for racks: supplies are each class's demand in container slots, the
// class → type edge costs the class's slowdown on that type against its
// best type once reads are counted (Lee's T = Tr + Tp, TaskSeconds), and
// type → sink capacities are the type's slots. A type gets a label when
// the flow sends a class there that runs much faster on it than anywhere
// else; the queue planner then steers capacities inside the partitions.

// LayoutNode is one NodeManager as the layout sees it.
type LayoutNode struct {
	ID    string // host:port, as the RM names it
	Type  string // node type (calibrate's rules)
	Slots int64  // containers it runs at once
	Label string // its partition now ("" = default)
}

// LayoutClass is one job class's demand and rates.
type LayoutClass struct {
	Name   string
	Queue  string // the queue its jobs run in (for the reasons)
	Demand int64  // container slots it keeps busy (running + pending)
	// Rates is the computing rate per node type relative to the reference
	// type (calibrate's CR); a type missing here has not been measured.
	Rates map[string]float64
	// RefSeconds is a map's processing time on the reference type and
	// BlockMiB its input split: together with Locality they give the read
	// share of a task (T = Tr + Tp). Zero BlockMiB ignores reads.
	RefSeconds float64
	BlockMiB   float64
	// Locality is where the class's input lives, per node type (from the
	// block maps); a missing type reads off-switch.
	Locality map[string]Locality
}

// LayoutOptions are the admin's knobs.
type LayoutOptions struct {
	// MinSpeedup is how much faster a class must run on a type, against
	// the best other type, for that type to get a label (default 1.5).
	MinSpeedup float64
	// Exclusive makes new labels exclusive; the default (false) lets
	// default-partition requests use the labelled nodes while idle.
	Exclusive bool
	// MinShare: the classes that justify a label must fill at least this
	// share of the type's slots in the flow (default 0.1), so a handful of
	// containers never relabels a whole hardware generation.
	MinShare float64
	// NoExplore turns off calibration partitions: by default a node type
	// no running class has been measured on gets a label of its own, so
	// the planner can send work there to measure it (Lee's calibration
	// phase). Without it, compute-only nodes in the default partition stay
	// idle under delay scheduling (no local data) and are never measured.
	NoExplore bool
	Bandwidth Bandwidth
}

// LabelPlan is one partition the layout wants.
type LabelPlan struct {
	Name      string   `json:"name"`
	NodeType  string   `json:"nodeType"`
	Exclusive bool     `json:"exclusive"`
	Nodes     []string `json:"nodes"`
	Classes   []string `json:"classes"` // classes the flow sends there
	Queues    []string `json:"queues"`  // their queues (need access)
	Exists    bool     `json:"exists"`  // the label and its nodes are already in place
	Reason    string   `json:"reason"`
}

// Layout is the chosen partition layout.
type Layout struct {
	Labels []LabelPlan `json:"labels"`
	// Slots[class][type] is the flow's assignment of each class's demand.
	Slots map[string]map[string]int64 `json:"slots"`
	// Unplaced is demand beyond the cluster's slots.
	Unplaced int64    `json:"unplaced"`
	Notes    []string `json:"notes"`
}

// labelName is YARN's rule for a node label (NodeLabelUtil.checkAndThrowLabelName).
var labelName = regexp.MustCompile(`^[0-9a-zA-Z][0-9a-zA-Z-_]*$`)

// LabelFor turns a node-type name into a valid node label.
func LabelFor(nodeType string) string {
	s := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, nodeType)
	s = strings.TrimLeft(s, "-_")
	if len(s) > 255 {
		s = s[:255]
	}
	return s
}

// costScale turns a relative slowdown into integer flow costs (per mille).
const costScale = 1000

// PlanLayout chooses the partitions. The type with the most slots stays
// the default partition (the cluster's bulk); any other type becomes a
// label when the min-cost flow sends a class there that runs at least
// MinSpeedup× faster on it than on its best alternative. Only unlabelled
// nodes are labelled: partitions an admin made are kept as they are.
func PlanLayout(nodes []LayoutNode, classes []LayoutClass, opt LayoutOptions) (Layout, error) {
	if opt.MinSpeedup == 0 {
		opt.MinSpeedup = 1.5
	}
	if opt.MinShare == 0 {
		opt.MinShare = 0.1
	}
	if opt.MinShare < 0 || opt.MinShare > 1 {
		return Layout{}, fmt.Errorf("layout: min share %v must be within 0..1", opt.MinShare)
	}
	if opt.MinSpeedup < 1 {
		return Layout{}, fmt.Errorf("layout: min speedup %v must be at least 1", opt.MinSpeedup)
	}
	if opt.Bandwidth == (Bandwidth{}) {
		opt.Bandwidth = DefaultBandwidth
	}
	if err := opt.Bandwidth.Validate(); err != nil {
		return Layout{}, err
	}
	slots := map[string]int64{}
	var types []string
	for _, n := range nodes {
		if n.Type == "" || n.Slots < 0 {
			return Layout{}, fmt.Errorf("layout: node %s has no type or negative slots (%d)", n.ID, n.Slots)
		}
		if _, ok := slots[n.Type]; !ok {
			types = append(types, n.Type)
		}
		slots[n.Type] += n.Slots
	}
	sort.Strings(types)
	out := Layout{Slots: map[string]map[string]int64{}}
	if len(types) < 2 {
		out.Notes = append(out.Notes, "one node type: nothing to separate")
		return out, nil
	}
	bulk := types[0]
	for _, t := range types {
		if slots[t] > slots[bulk] {
			bulk = t
		}
	}

	// seconds[c][t]: a map's time on type t, reads included.
	seconds := make([]map[string]float64, len(classes))
	for i, c := range classes {
		if c.Demand < 0 {
			return Layout{}, fmt.Errorf("layout: class %s has negative demand %d", c.Name, c.Demand)
		}
		ref := c.RefSeconds
		if ref <= 0 {
			ref = 1
		}
		seconds[i] = map[string]float64{}
		for _, t := range types {
			cr, known := c.Rates[t]
			if !known || cr <= 0 {
				cr = 1 // unmeasured: neutral, and never a reason for a label
			}
			seconds[i][t] = TaskSeconds(ref, cr, c.BlockMiB, c.Locality[t], opt.Bandwidth)
		}
	}

	// The flow: source → class (demand) → type (slowdown) → sink (slots),
	// and class → sink at a cost above any slowdown for demand that does
	// not fit.
	g := NewFlowGraph(2)
	src, sink := 0, 1
	typeNode := map[string]int{}
	for _, t := range types {
		typeNode[t] = g.AddNode()
		if _, err := g.AddEdge(typeNode[t], sink, slots[t], 0); err != nil {
			return Layout{}, err
		}
	}
	// best[i] is class i's fastest type's time; costs are slowdowns
	// against it, and the overflow edge costs more than any of them.
	best := make([]float64, len(classes))
	var worst int64
	for i := range classes {
		best[i] = math.Inf(1)
		for _, s := range seconds[i] {
			best[i] = math.Min(best[i], s)
		}
		for _, s := range seconds[i] {
			worst = max(worst, slowdownCost(s, best[i]))
		}
	}
	edge := make([]map[string]int, len(classes))
	var total int64
	for i, c := range classes {
		cn := g.AddNode()
		if _, err := g.AddEdge(src, cn, c.Demand, 0); err != nil {
			return Layout{}, err
		}
		edge[i] = map[string]int{}
		for _, t := range types {
			id, err := g.AddEdge(cn, typeNode[t], c.Demand, slowdownCost(seconds[i][t], best[i]))
			if err != nil {
				return Layout{}, err
			}
			edge[i][t] = id
		}
		if _, err := g.AddEdge(cn, sink, c.Demand, worst+costScale); err != nil {
			return Layout{}, err
		}
		total += c.Demand
	}
	if total == 0 {
		out.Notes = append(out.Notes, "no demand: layout left as is")
		return out, nil
	}
	if _, _, err := g.MinCostFlow(src, sink, total); err != nil {
		return Layout{}, fmt.Errorf("layout: %w", err)
	}
	var placed int64
	for i, c := range classes {
		out.Slots[c.Name] = map[string]int64{}
		for _, t := range types {
			if f := g.Flow(edge[i][t]); f > 0 {
				out.Slots[c.Name][t] = f
				placed += f
			}
		}
	}
	out.Unplaced = total - placed

	for _, t := range types {
		if t == bulk {
			continue
		}
		lp := LabelPlan{Name: LabelFor(t), NodeType: t, Exclusive: opt.Exclusive}
		var why []string
		var fill int64 // slots of t the justifying classes take
		for i, c := range classes {
			f := out.Slots[c.Name][t]
			if f == 0 {
				continue
			}
			if _, measured := c.Rates[t]; !measured {
				continue
			}
			// Against measured types only: an unmeasured one is no evidence.
			alt := math.Inf(1)
			for _, u := range types {
				if _, measured := c.Rates[u]; measured && u != t {
					alt = math.Min(alt, seconds[i][u])
				}
			}
			if math.IsInf(alt, 1) {
				continue
			}
			speedup := alt / seconds[i][t]
			if speedup < opt.MinSpeedup {
				continue
			}
			lp.Classes = append(lp.Classes, c.Name)
			fill += f
			if c.Queue != "" && !slices.Contains(lp.Queues, c.Queue) {
				lp.Queues = append(lp.Queues, c.Queue)
			}
			why = append(why, fmt.Sprintf("%s runs %.1f× faster on %s than on its best other type (reads counted); the flow gives it %d of %s's %d slots", c.Name, speedup, t, f, t, slots[t]))
		}
		if len(lp.Classes) == 0 {
			continue
		}
		if float64(fill) < opt.MinShare*float64(slots[t]) {
			out.Notes = append(out.Notes, fmt.Sprintf("%s: %s would fill %d of its %d slots (below %.0f%%); no label", t, strings.Join(lp.Classes, ","), fill, slots[t], 100*opt.MinShare))
			continue
		}
		labelled, existing := 0, 0
		for _, n := range nodes {
			if n.Type != t {
				continue
			}
			switch n.Label {
			case "":
				lp.Nodes = append(lp.Nodes, n.ID)
			case lp.Name:
				existing++
			default:
				labelled++
			}
		}
		sort.Strings(lp.Nodes)
		sort.Strings(lp.Queues)
		if labelled > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%d %s nodes carry an admin's label; left as they are", labelled, t))
		}
		if len(lp.Nodes) == 0 {
			if existing > 0 {
				lp.Exists = true
				lp.Reason = strings.Join(why, "; ") + "; already in place"
				out.Labels = append(out.Labels, lp)
			}
			continue
		}
		lp.Reason = strings.Join(why, "; ")
		out.Labels = append(out.Labels, lp)
	}
	if !opt.NoExplore {
		out.Labels = append(out.Labels, explore(nodes, classes, types, bulk, out.Labels, opt)...)
	}
	if len(out.Labels) == 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("no class runs %.1f× faster on a type other than %s: no label needed", opt.MinSpeedup, bulk))
	}
	return out, nil
}

// explore proposes a calibration partition for each non-bulk node type
// that no class with demand has been measured on, its unlabelled nodes,
// with access for those classes' queues.
func explore(nodes []LayoutNode, classes []LayoutClass, types []string, bulk string, planned []LabelPlan, opt LayoutOptions) []LabelPlan {
	var out []LabelPlan
	for _, t := range types {
		if t == bulk || hasType(planned, t) {
			continue
		}
		measured := false
		lp := LabelPlan{Name: LabelFor(t), NodeType: t, Exclusive: opt.Exclusive}
		for _, c := range classes {
			if c.Demand == 0 {
				continue
			}
			if _, ok := c.Rates[t]; ok {
				measured = true
				break
			}
			lp.Classes = append(lp.Classes, c.Name)
			if c.Queue != "" && !slices.Contains(lp.Queues, c.Queue) {
				lp.Queues = append(lp.Queues, c.Queue)
			}
		}
		if measured || len(lp.Classes) == 0 {
			continue
		}
		for _, n := range nodes {
			if n.Type == t && n.Label == "" {
				lp.Nodes = append(lp.Nodes, n.ID)
			}
		}
		if len(lp.Nodes) == 0 {
			continue
		}
		sort.Strings(lp.Nodes)
		sort.Strings(lp.Queues)
		lp.Reason = fmt.Sprintf("no running class has been measured on %s (%s); a partition of its own lets the planner send them there to measure it (calibration)", t, strings.Join(lp.Classes, ", "))
		out = append(out, lp)
	}
	return out
}

func hasType(ls []LabelPlan, t string) bool {
	for _, l := range ls {
		if l.NodeType == t {
			return true
		}
	}
	return false
}

// slowdownCost is a slot's cost on a type: its slowdown against the
// class's best type, per mille.
func slowdownCost(seconds, best float64) int64 {
	return int64(math.Round(costScale * (seconds/best - 1)))
}
