package decide

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// Provenance (issue 32): the decision records which step last set each
// value it writes, so `plan -v` and the audit can say which of the steps
// moved a capacity, a ceiling or a home. Decide flattens the targets after
// every step (targetValues) and charges each value that changed to that
// step; the encoding (modeStep) re-expresses values without changing them
// and is not tracked.

// ProvenanceKey names a written value: the queue and its relative property,
// as Change has them.
func ProvenanceKey(queue, property string) string { return queue + " " + property }

// targetValues flattens targets to provenanceKey → value.
func targetValues(targets map[string]plan.QueueTarget) map[string]string {
	out := make(map[string]string, 4*len(targets))
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for q, t := range targets {
		for part, v := range t.Capacity {
			out[ProvenanceKey(q, plan.CapacityProp(part))] = f(v)
		}
		for part, v := range t.MaxCapacity {
			out[ProvenanceKey(q, plan.MaxCapacityProp(part))] = f(v)
		}
		if t.DefaultLabelExpression != nil {
			out[ProvenanceKey(q, "default-node-label-expression")] = *t.DefaultLabelExpression
		}
		if t.AccessibleLabels != nil {
			out[ProvenanceKey(q, "accessible-node-labels")] = strings.Join(t.AccessibleLabels, ",")
		}
		if t.DisablePreemption != nil {
			out[ProvenanceKey(q, plan.DisablePreemptionProp)] = strconv.FormatBool(*t.DisablePreemption)
		}
	}
	return out
}

// chargeChanges notes step as the setter of every value that differs
// between before and after (set or changed; a value a step removes keeps
// no setter).
func chargeChanges(setBy map[string]string, before, after map[string]string, step string) {
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if v, ok := before[k]; !ok || v != after[k] {
			setBy[k] = step
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			delete(setBy, k)
		}
	}
}
