package decide

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// modeStep says, for each sibling group and partition the targets move,
// how it is written. Groups it cannot write are dropped with a note:
// siblings in different modes, a queue whose partitions differ in mode,
// and weights on an RM older than 3.4 (a real 3.3.6 RM refuses
// capacity=2w: `For input string: "2w"`).
type modeStep struct{ RMVersion string }

func (modeStep) Name() string { return "mode encoding" }

func (st modeStep) Run(s *decideState) error {
	weightsOK, why := WeightModeSupported(st.RMVersion)
	noted := map[string]bool{}
	note := func(n string) {
		if !noted[n] {
			noted[n] = true
			s.Notes = append(s.Notes, n)
		}
	}
	paths := make([]string, 0, len(s.Targets))
	for p := range s.Targets {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		t := s.Targets[path]
		q := s.Tree.ByPath[path]
		if q == nil || q.Parent == nil {
			continue
		}
		t.Encoding = map[string]plan.Encoding{}
		for _, part := range plan.SortedKeys(t.Capacity) {
			mode, ok := plan.GroupMode(q.Parent, part)
			if !ok {
				note(fmt.Sprintf("children of %s mix capacity modes in partition %q (the Capacity Scheduler rejects that); left as they are", q.Parent.Path, part))
				delete(t.Capacity, part)
				continue
			}
			if own, ok := queueMode(q); !ok || (own != "" && own != mode) {
				note(fmt.Sprintf("queue %s mixes capacity modes across its partitions; left as it is", path))
				delete(t.Capacity, part)
				continue
			}
			enc := plan.Encoding{Mode: mode}
			switch mode {
			case schedconf.ModeWeight:
				if !weightsOK {
					note(fmt.Sprintf("children of %s are in weight mode but %s; their weights are left as they are", q.Parent.Path, why))
					delete(t.Capacity, part)
					continue
				}
				for _, c := range q.Parent.Children {
					if v, ok := c.Capacity[part]; ok {
						enc.WeightSum += v.Weight
					}
				}
			case schedconf.ModeAbsolute:
				enc.ParentMemoryMB, enc.ParentVCores = parentResources(s, q.Parent, part)
				if enc.ParentMemoryMB <= 0 {
					delete(t.Capacity, part)
					continue
				}
			}
			t.Encoding[part] = enc
		}
		s.Targets[path] = t
	}
	return nil
}

// queueMode is the one mode of a queue's capacities across partitions.
func queueMode(q *schedconf.Queue) (schedconf.Mode, bool) {
	var mode schedconf.Mode
	for _, v := range q.Capacity {
		if mode != "" && v.Mode != mode {
			return "", false
		}
		mode = v.Mode
	}
	return mode, true
}

// parentResources are a parent's resources in a partition, as absolute
// children divide them: for root, what its children are configured with
// together (the partition's total when they have none), the parent's own
// absolute value when it has one, else its share of the partition.
// BuildPlan re-expresses the children over the parent's value as written
// in the same plan (parents' groups are planned first).
//
// Root's children divide their own sum, not the partition's total, as
// schedconf's ShareOfParent and the admin's first-seen shares do: the
// total moves when a node is lent, lost or added, and dividing it made
// the replay's "admin's configuration" a rescaled copy of the admin's
// values, rewritten every cycle a node was lent (held-out cluster 1007:
// 115 writes over three runs that changed nothing the admin meant).
func parentResources(s *decideState, parent *schedconf.Queue, part string) (int64, int64) {
	var total struct{ mem, vc int64 }
	if p, ok := s.Snap.Partition(part); ok {
		total.mem, total.vc = p.Total.MemoryMB, p.Total.VCores
	}
	if parent.Parent == nil {
		if mem, vc := parent.ChildrenAbsolute(part); mem > 0 {
			return mem, vc
		}
		return total.mem, total.vc
	}
	if v, ok := parent.Capacity[part]; ok && v.Mode == schedconf.ModeAbsolute {
		return v.Absolute["memory"], v.Absolute["vcores"]
	}
	return int64(parent.AbsCapacity[part] * float64(total.mem)), int64(parent.AbsCapacity[part] * float64(total.vc))
}

// WeightModeSupported: queue weights (capacity=Nw) exist from Hadoop 3.4
// (YARN-10169 ships in 3.4.0); a 3.3 RM refuses them. An unknown version
// is treated as not supporting them.
func WeightModeSupported(version string) (bool, string) {
	v := strings.TrimSpace(version)
	if v == "" {
		return false, "the ResourceManager's version is unknown (weights need Hadoop 3.4 or later)"
	}
	parts := strings.SplitN(v, ".", 3)
	major, err1 := strconv.Atoi(parts[0])
	minor := 0
	var err2 error
	if len(parts) > 1 {
		minor, err2 = strconv.Atoi(strings.TrimLeft(parts[1], "v"))
	}
	if err1 != nil || err2 != nil {
		return false, fmt.Sprintf("the ResourceManager's version %q cannot be read (weights need Hadoop 3.4 or later)", version)
	}
	if major > 3 || major == 3 && minor >= 4 {
		return true, ""
	}
	return false, fmt.Sprintf("the ResourceManager runs Hadoop %s, which refuses weights (they need 3.4 or later)", version)
}
