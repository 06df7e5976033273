package schedconf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ParseTree builds the queue hierarchy a configuration describes, starting
// at root and following each queue's `queues` list, and derives every
// queue's absolute capacity per partition (a fraction of the partition):
// percentage children take parent × pct/100, weight children take parent ×
// w/Σ sibling weights. Absolute-resource queues keep AbsCapacity unset
// (they need the partition's resources; see ResolveAbsolute).
func ParseTree(c Conf) (*Tree, error) {
	t := &Tree{ByPath: map[string]*Queue{}}
	labels := map[string]bool{"": true}
	var build func(path string, parent *Queue, depth int) (*Queue, error)
	build = func(path string, parent *Queue, depth int) (*Queue, error) {
		if depth > 64 {
			return nil, fmt.Errorf("queue %s: hierarchy deeper than 64 (a cycle in queues lists?)", path)
		}
		if _, dup := t.ByPath[path]; dup {
			return nil, fmt.Errorf("queue %s is listed twice", path)
		}
		name := path[strings.LastIndex(path, ".")+1:]
		q := &Queue{Path: path, Name: name, Parent: parent, State: "RUNNING",
			Capacity: map[string]CapacityValue{}, MaxCapacity: map[string]CapacityValue{},
			UserLimitFactor: 1, MaxAMResourcePercent: 0.1, OrderingPolicy: "fifo",
			AbsCapacity: map[string]float64{}, AbsMaxCapacity: map[string]float64{}, MaxApplications: -1}
		t.ByPath[path] = q
		get := func(prop string) (string, bool) { v, ok := c[Key(path, prop)]; return v, ok }
		if v, ok := get("state"); ok && v != "" {
			q.State = strings.ToUpper(strings.TrimSpace(v))
		}
		if v, ok := get("capacity"); ok && v != "" {
			cv, err := ParseCapacity(v)
			if err != nil {
				return nil, fmt.Errorf("queue %s capacity: %w", path, err)
			}
			q.Capacity[""] = cv
		} else if parent == nil {
			q.Capacity[""] = CapacityValue{Mode: ModePercentage, Percent: 100, Raw: "100"}
		}
		if v, ok := get("maximum-capacity"); ok && v != "" && v != "-1" {
			cv, err := ParseCapacity(v)
			if err != nil {
				return nil, fmt.Errorf("queue %s maximum-capacity: %w", path, err)
			}
			q.MaxCapacity[""] = cv
		}
		// Labelled capacities: accessible-node-labels.<label>.capacity.
		prefix := Key(path, "accessible-node-labels.")
		for k, v := range c {
			if !strings.HasPrefix(k, prefix) || v == "" {
				continue
			}
			rest := k[len(prefix):]
			var label, prop string
			switch {
			case strings.HasSuffix(rest, ".maximum-capacity"):
				label, prop = strings.TrimSuffix(rest, ".maximum-capacity"), "maximum-capacity"
			case strings.HasSuffix(rest, ".capacity"):
				label, prop = strings.TrimSuffix(rest, ".capacity"), "capacity"
			default:
				continue
			}
			if strings.Contains(label, ".") {
				continue // a child's property, not ours
			}
			cv, err := ParseCapacity(v)
			if err != nil {
				return nil, fmt.Errorf("queue %s label %s %s: %w", path, label, prop, err)
			}
			labels[label] = true
			if prop == "capacity" {
				q.Capacity[label] = cv
			} else if v != "-1" {
				q.MaxCapacity[label] = cv
			}
		}
		if v, ok := get("accessible-node-labels"); ok {
			q.AccessibleLabels = labelList(v)
		} else if parent != nil {
			q.AccessibleLabels = append([]string(nil), parent.AccessibleLabels...)
		} else {
			q.AccessibleLabels = []string{"*"}
		}
		for _, l := range q.AccessibleLabels {
			if l != "*" {
				labels[l] = true
			}
		}
		if v, ok := get("default-node-label-expression"); ok {
			q.DefaultLabelExpression = strings.TrimSpace(v)
		} else if parent != nil {
			q.DefaultLabelExpression = parent.DefaultLabelExpression
		}
		if v, ok := get("user-limit-factor"); ok && v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("queue %s user-limit-factor %q: not a number", path, v)
			}
			q.UserLimitFactor = f
		}
		amKey := "maximum-am-resource-percent"
		if v, ok := get(amKey); ok && v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("queue %s %s %q: not a number", path, amKey, v)
			}
			q.MaxAMResourcePercent = f
		} else if v, ok := c[Prefix+amKey]; ok && v != "" {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q.MaxAMResourcePercent = f
			}
		}
		if v, ok := get("ordering-policy"); ok && v != "" {
			q.OrderingPolicy = v
		}
		if v, ok := get("default-application-priority"); ok && v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("queue %s default-application-priority %q: not an integer", path, v)
			}
			q.DefaultAppPriority = n
		}
		if v, ok := get("maximum-applications"); ok && v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				q.MaxApplications = n
			}
		}
		if v, ok := get("queues"); ok {
			for _, child := range queueList(v) {
				cq, err := build(path+"."+child, q, depth+1)
				if err != nil {
					return nil, err
				}
				q.Children = append(q.Children, cq)
			}
		}
		return q, nil
	}
	root, err := build("root", nil, 0)
	if err != nil {
		return nil, err
	}
	t.Root = root
	for l := range labels {
		t.Labels = append(t.Labels, l)
	}
	sort.Strings(t.Labels)
	t.derive(t.Root, nil)
	return t, nil
}

// ResolveAbsolute gives absolute-resource queues their share (0..1) of
// each partition, which the configuration alone cannot say, and derives
// the queues below them again. share answers for one queue and partition
// (ok false: unknown, left 0): the RM's effective absoluteCapacity, or the
// queue's configured memory over the partition's.
func (t *Tree) ResolveAbsolute(share func(q *Queue, label string) (float64, bool)) {
	t.derive(t.Root, share)
}

// derive fills AbsCapacity and AbsMaxCapacity top-down; absShare, when
// set, answers for absolute-resource queues (ResolveAbsolute).
func (t *Tree) derive(q *Queue, absShare func(q *Queue, label string) (float64, bool)) {
	if q.Parent == nil {
		for _, l := range t.Labels {
			q.AbsCapacity[l], q.AbsMaxCapacity[l] = 1, 1
		}
	}
	for _, l := range t.Labels {
		weightSum := 0.0
		for _, c := range q.Children {
			if v, ok := c.Capacity[l]; ok && v.Mode == ModeWeight {
				weightSum += v.Weight
			}
		}
		for _, c := range q.Children {
			pAbs, pMax := q.AbsCapacity[l], q.AbsMaxCapacity[l]
			v, ok := c.Capacity[l]
			switch {
			case !ok:
				c.AbsCapacity[l] = 0
			case v.Mode == ModePercentage:
				c.AbsCapacity[l] = pAbs * v.Percent / 100
			case v.Mode == ModeWeight && weightSum > 0:
				c.AbsCapacity[l] = pAbs * v.Weight / weightSum
			case v.Mode == ModeAbsolute && absShare != nil:
				c.AbsCapacity[l], _ = absShare(c, l)
			default:
				c.AbsCapacity[l] = 0
			}
			if m, ok := c.MaxCapacity[l]; ok && m.Mode == ModePercentage {
				c.AbsMaxCapacity[l] = pMax * m.Percent / 100
			} else {
				c.AbsMaxCapacity[l] = pMax
			}
			if l != "" && !c.CanUse(l) {
				c.AbsCapacity[l], c.AbsMaxCapacity[l] = 0, 0
			}
		}
	}
	for _, c := range q.Children {
		t.derive(c, absShare)
	}
}

// ShareOfParent is the queue's configured capacity in a partition as a
// percentage of its parent's, whatever the mode: percentage as written;
// weight w/Σ sibling weights; absolute its memory over the parent's
// configured memory (for root's children, over the sum of the siblings':
// the partition's size is not in the configuration).
func (q *Queue) ShareOfParent(p string) float64 {
	v, ok := q.Capacity[p]
	if !ok || q.Parent == nil {
		return 0
	}
	switch v.Mode {
	case ModePercentage:
		return v.Percent
	case ModeWeight:
		sum := 0.0
		for _, c := range q.Parent.Children {
			if cv, ok := c.Capacity[p]; ok && cv.Mode == ModeWeight {
				sum += cv.Weight
			}
		}
		if sum == 0 {
			return 0
		}
		return 100 * v.Weight / sum
	case ModeAbsolute:
		if pv, ok := q.Parent.Capacity[p]; ok && pv.Mode == ModeAbsolute && pv.Absolute["memory"] > 0 {
			return 100 * float64(v.Absolute["memory"]) / float64(pv.Absolute["memory"])
		}
		sum, _ := q.Parent.ChildrenAbsolute(p)
		if sum == 0 {
			return 0
		}
		return 100 * float64(v.Absolute["memory"]) / float64(sum)
	}
	return 0
}

// Leaves returns the leaf queues in path order.
func (t *Tree) Leaves() []*Queue {
	var out []*Queue
	for _, q := range t.ByPath {
		if q.IsLeaf() {
			out = append(out, q)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// LeafPaths maps each leaf's full path and its short name to its path: the
// RM lists an app's queue by its leaf name or its path (leaf names are
// unique in the Capacity Scheduler).
func (t *Tree) LeafPaths() map[string]string {
	out := map[string]string{}
	for _, q := range t.Leaves() {
		out[q.Path], out[q.Name] = q.Path, q.Path
	}
	return out
}

// CanUse reports whether the queue may run containers in a partition: the
// default partition always, a label when accessible-node-labels lists it or *.
func (q *Queue) CanUse(label string) bool {
	if label == "" {
		return true
	}
	for _, l := range q.AccessibleLabels {
		if l == "*" || l == label {
			return true
		}
	}
	return false
}

// ChildrenAbsolute is what the queue's absolute-resource children are
// configured with together in partition p (memory MB and vcores): what
// they divide when the queue itself has no absolute value (root).
func (q *Queue) ChildrenAbsolute(p string) (memory, vcores int64) {
	for _, c := range q.Children {
		if cv, ok := c.Capacity[p]; ok && cv.Mode == ModeAbsolute {
			memory += cv.Absolute["memory"]
			vcores += cv.Absolute["vcores"]
		}
	}
	return memory, vcores
}
