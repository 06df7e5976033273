package schedconf

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// capacityEpsilon is the tolerance of the children-sum check
// (ParentQueue uses a float comparison with a small delta).
const capacityEpsilon = 1e-6

// Validate checks a configuration the way the Capacity Scheduler does when it
// re-initialises its queues (legacy queue mode, the 3.4 default; see
// HADOOP-API.md §5), returning *ValidationError with Hadoop's message text.
func Validate(c Conf) error { return ValidateWithLabels(c, nil) }

// ValidateWithLabels is Validate plus a check that every label a queue
// mentions exists in the cluster (clusterLabels nil skips that check).
func ValidateWithLabels(c Conf, clusterLabels []string) error {
	t, err := ParseTree(c)
	if err != nil {
		return &ValidationError{Message: err.Error()}
	}
	if clusterLabels != nil {
		known := map[string]bool{"": true, "*": true}
		for _, l := range clusterLabels {
			known[l] = true
		}
		for _, q := range sortedQueues(t) {
			for _, l := range q.AccessibleLabels {
				if !known[l] {
					return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("queue=%s is configured to use label=%s, which does not exist in the cluster's node labels", q.Path, l)}
				}
			}
			for l := range q.Capacity {
				if !known[l] {
					return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("queue=%s sets a capacity for node-label=%s, which does not exist in the cluster's node labels", q.Path, l)}
				}
			}
		}
	}
	for _, q := range sortedQueues(t) {
		if err := validateValues(q); err != nil {
			return err
		}
		if err := validateChildren(t, q); err != nil {
			return err
		}
	}
	return nil
}

func sortedQueues(t *Tree) []*Queue {
	out := make([]*Queue, 0, len(t.ByPath))
	for _, q := range t.ByPath {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// validateValues checks one queue's own values: percentages within [0,100]
// and capacity ≤ maximum-capacity (CapacitySchedulerConfiguration,
// CSQueueUtils.checkAbsoluteCapacity).
func validateValues(q *Queue) error {
	for _, l := range sortedLabels(q.Capacity) {
		v := q.Capacity[l]
		if v.Mode != ModePercentage {
			continue
		}
		if v.Percent < 0 || v.Percent > 100 {
			if l == "" {
				return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Illegal capacity of %s for queue %s", javaFloat(v.Percent/100), q.Path)}
			}
			return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Illegal capacity of %s for node-label=%s in queue=%s, valid capacity should in range of [0, 100].", javaFloat(v.Percent/100), l, q.Path)}
		}
	}
	for _, l := range sortedLabels(q.MaxCapacity) {
		m := q.MaxCapacity[l]
		if m.Mode == ModePercentage && (m.Percent < 0 || m.Percent > 100) {
			return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Illegal maximum-capacity of %s for queue %s label=%s", javaFloat(m.Percent/100), q.Path, l)}
		}
		if c, ok := q.Capacity[l]; ok && c.Mode == ModePercentage && m.Mode == ModePercentage && c.Percent > m.Percent+capacityEpsilon {
			return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Illegal queue capacity setting (abs-capacity=%s) > (abs-maximum-capacity=%s) for queue=[%s],label=[%s]",
				javaFloat(q.AbsCapacity[l]), javaFloat(q.AbsMaxCapacity[l]), q.Path, l)}
		}
	}
	return nil
}

// validateChildren checks one parent's children per partition: one mode,
// no absolute/relative mixing with the parent, and percentage sums of
// exactly 100 (or 0) — ParentQueue.setChildQueues.
func validateChildren(t *Tree, q *Queue) error {
	if len(q.Children) == 0 {
		return nil
	}
	for _, l := range t.Labels {
		if l != "" && !q.CanUse(l) {
			continue
		}
		modes := map[Mode]bool{}
		sum := 0.0
		for _, c := range q.Children {
			v, ok := c.Capacity[l]
			if !ok {
				continue
			}
			modes[v.Mode] = true
			if v.Mode == ModePercentage {
				sum += v.Percent / 100
			}
		}
		if len(modes) > 1 {
			if modes[ModeAbsolute] {
				return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Parent=%s: When absolute minResource is used, we must make sure both parent and child all use absolute minResource", q.Path)}
			}
			return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Parent queue '%s' have children queue used mixed of weight mode, percentage and absolute mode, it is not allowed, please double check, label=%s", q.Path, l)}
		}
		if pv, ok := q.Capacity[l]; ok && q.Parent != nil && (pv.Mode == ModeAbsolute) != modes[ModeAbsolute] && len(modes) == 1 {
			return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Parent=%s: When absolute minResource is used, we must make sure both parent and child all use absolute minResource", q.Path)}
		}
		if !modes[ModePercentage] {
			continue
		}
		parentPct := q.AbsCapacity[l]
		if pv, ok := q.Capacity[l]; ok && pv.Mode == ModePercentage {
			parentPct = pv.Percent
		}
		switch {
		case math.Abs(sum-1) <= capacityEpsilon:
			if parentPct == 0 && q.Parent != nil {
				return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Illegal capacity sum of %s for children of queue %s for label=%s. queue=%s has zero capacity, but childqueues have positive capacities", javaFloat(sum), q.Name, l, q.Name)}
			}
		case math.Abs(sum) <= capacityEpsilon:
			if parentPct != 0 && allowZeroSum(t, q) == false {
				return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Illegal capacity sum of %s for children of queue %s for label=%s. It is set to 0, but parent percent != 0, and doesn't allow children capacity to set to 0", javaFloat(sum), q.Name, l)}
			}
		default:
			return &ValidationError{Queue: q.Path, Message: fmt.Sprintf("Illegal capacity sum of %s for children of queue %s for label=%s. It should be either 0 or 1.0", javaFloat(sum), q.Name, l)}
		}
	}
	return nil
}

// allowZeroSum is the allow-zero-capacity-sum switch of a parent; the tree
// does not keep it, so it is read back from the queue's conf when needed.
// Kept false (Hadoop's default) unless set; ParseTree callers that need it
// can extend Queue.
func allowZeroSum(_ *Tree, _ *Queue) bool { return false }

func sortedLabels(m map[string]CapacityValue) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// javaFloat formats a fraction the way Java prints a float ("1.1", "1.0").
func javaFloat(f float64) string {
	s := strconv.FormatFloat(float64(float32(f)), 'f', -1, 32)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
