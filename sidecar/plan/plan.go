package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// QueueTarget is what the decision packages want for one leaf queue.
// Percentages are of the parent queue in each partition ("" = default), the
// Capacity Scheduler's percentage mode.
type QueueTarget struct {
	Capacity    map[string]float64
	MaxCapacity map[string]float64
	// AccessibleLabels, when non-nil, replaces accessible-node-labels.
	AccessibleLabels []string
	// DefaultLabelExpression, when non-nil, replaces
	// default-node-label-expression (steers the new containers of running
	// apps: the scheduler re-reads it on each allocate).
	DefaultLabelExpression *string
	// DisablePreemption, when non-nil, sets disable_preemption (true) or
	// removes it (false: back to what the queue inherits).
	DisablePreemption *bool
	Reason            string
	// Bands are the admin's guarantee per partition (percent of the
	// parent); BuildPlan never writes a capacity outside them.
	Bands map[string]Band
	// Encoding says how each partition's capacity is written (the mode of
	// the queue's sibling group; set by the decision's mode step). Absent =
	// percentage.
	Encoding map[string]Encoding
}

// PriorityChange is one app priority the plan sets.
type PriorityChange struct {
	AppID  string `json:"appId"`
	Queue  string `json:"queue"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason,omitempty"`
}

// Change is one property the plan changes, with the reason in words.
type Change struct {
	Queue     string `json:"queue"`
	Partition string `json:"partition"`
	Property  string `json:"property"` // relative to the queue, e.g. accessible-node-labels.gpu.capacity
	From      string `json:"from"`
	To        string `json:"to"`
	Limited   bool   `json:"limited,omitempty"` // clamped by the step limit this cycle
	Reason    string `json:"reason,omitempty"`
	// SetBy is the decision step that last set the value (provenance.go;
	// empty for values outside the targets, e.g. globals).
	SetBy string `json:"setBy,omitempty"`
	// Admin is the admin's value of the property, as the sidecar first saw
	// the queue (nil: not known): a change toward it gives back what the
	// sidecar moved (act.ReturnsOnly).
	Admin *string `json:"admin,omitempty"`
}

// Plan is one cycle's decision as a value: what to change, why, and the
// configuration version it was made from. Applier turns it into one
// scheduler-conf mutation.
type Plan struct {
	Time        time.Time `json:"time"`
	ConfVersion int64     `json:"confVersion"`
	// ConfSource is where the live configuration came from: scheduler-conf,
	// /ws/v1/cluster/scheduler or file:<capacity-scheduler.xml> (a
	// file-store RM; AnyStore). Empty when the observer does not say.
	ConfSource string             `json:"confSource,omitempty"`
	Changes    []Change           `json:"changes"`
	Priorities []PriorityChange   `json:"priorities,omitempty"`
	Reasons    []string           `json:"reasons,omitempty"`
	Mutation   schedconf.Mutation `json:"-"`
	// Base is the live configuration the plan was made from; Desired is Base
	// with the (safety-limited) plan applied.
	Base    schedconf.Conf `json:"-"`
	Desired schedconf.Conf `json:"-"`
	// Metrics the decision predicted (for reports), e.g. "sum_ps".
	Predicted map[string]float64 `json:"predicted,omitempty"`
	// Urgent are queues the plan raises for a job at risk of missing its
	// deadline (queue → reason): such a plan may pass the rate limit's
	// interval and gain threshold (RateLimit.Allow), never the bands.
	Urgent map[string]string `json:"urgent,omitempty"`
	// Calibrations are the plan's calibration moves and the containers
	// each exposes to an unmeasured partition (issue 32).
	Calibrations []CalibrationExposure `json:"calibrations,omitempty"`
	// Restores are queues the plan raises back toward the admin's
	// guarantee or for their goal jobs (queue → reason): such a plan may
	// use the last mutations of the hour (RateLimit.Reserved).
	Restores map[string]string `json:"restores,omitempty"`
	// Repairs are the running classes the live configuration is predicted
	// to slow by more than the repair margin (decide.DefaultRepairMarginPercent)
	// against the admin's own, and this plan does not ("queue/class -N%"):
	// with every change a return to the admin's values, the plan passes
	// the hourly cap (act.RepairsOnly).
	Repairs []string `json:"repairs,omitempty"`
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Changes) == 0 && len(p.Priorities) == 0 }

// BuildPlan turns queue targets into a Plan against the live configuration:
// it formats the targets as Capacity Scheduler properties, applies the
// safety rules (hysteresis, step limit, floors; see safety.go) per parent and
// partition so sibling sums stay exactly 100, and diffs the result into a
// single mutation.
func BuildPlan(now time.Time, base schedconf.Conf, version int64, targets map[string]QueueTarget, rules SafetyRules) (*Plan, error) {
	tree, err := schedconf.ParseTree(base)
	if err != nil {
		return nil, fmt.Errorf("parse live scheduler configuration: %w", err)
	}
	desired := base.Clone()
	plan := &Plan{Time: now, ConfVersion: version, Base: base}

	// Group capacity targets by (parent, partition) so the step limit and
	// rounding keep sibling sums exact.
	type groupKey struct{ parent, partition string }
	groups := map[groupKey]map[string]float64{}
	encodings := map[groupKey]Encoding{}
	for path, t := range targets {
		q, ok := tree.ByPath[path]
		if !ok {
			return nil, fmt.Errorf("plan names queue %s, which is not in the live configuration", path)
		}
		if q.Parent == nil {
			return nil, fmt.Errorf("plan names the root queue")
		}
		for part, pct := range t.Capacity {
			k := groupKey{q.Parent.Path, part}
			if groups[k] == nil {
				groups[k] = map[string]float64{}
				encodings[k] = Encoding{Mode: schedconf.ModePercentage}
			}
			if e, ok := t.Encoding[part]; ok {
				encodings[k] = e
			}
			groups[k][path] = pct
		}
	}
	// An absolute parent the plan moves carries its children along at
	// their shares (their resources are written over the parent's new
	// value), even when the plan does not target them: children never ask
	// for more than their parent has.
	for path, t := range targets {
		q := tree.ByPath[path]
		for part, e := range t.Encoding {
			if e.Mode != schedconf.ModeAbsolute || len(q.Children) == 0 {
				continue
			}
			if _, moved := t.Capacity[part]; !moved {
				continue
			}
			k := groupKey{path, part}
			if groups[k] != nil {
				continue
			}
			v, ok := q.Capacity[part]
			if !ok || v.Mode != schedconf.ModeAbsolute {
				continue
			}
			if mode, ok := GroupMode(q, part); !ok || mode != schedconf.ModeAbsolute {
				continue
			}
			groups[k] = map[string]float64{}
			encodings[k] = Encoding{Mode: schedconf.ModeAbsolute, ParentMemoryMB: v.Absolute["memory"], ParentVCores: v.Absolute["vcores"]}
		}
	}
	reasonOf := func(path string) string { return targets[path].Reason }

	gkeys := make([]groupKey, 0, len(groups))
	for k := range groups {
		gkeys = append(gkeys, k)
	}
	sort.Slice(gkeys, func(i, j int) bool {
		if gkeys[i].parent != gkeys[j].parent {
			return gkeys[i].parent < gkeys[j].parent
		}
		return gkeys[i].partition < gkeys[j].partition
	})
	for _, k := range gkeys {
		parent := tree.ByPath[k.parent]
		enc := encodings[k]
		current := map[string]float64{}
		for _, child := range parent.Children {
			current[child.Path] = shareOf(child, k.partition, enc)
		}
		want := map[string]float64{}
		for path, cur := range current {
			want[path] = cur
		}
		for path, pct := range groups[k] {
			want[path] = pct
		}
		floors := map[string]float64{}
		for path := range current {
			floors[path] = rules.floorPercent(path, k.partition)
		}
		step := LimitStep(current, want, floors, rules)
		step.Next = keepInBands(step.Next, current, targets, k.partition)
		encNext := nextParent(enc, desired, k.parent, k.partition)
		values := encode(encNext, step.Next, current, parent, k.partition, encNext == enc)
		for _, path := range SortedKeys(step.Next) {
			cur, next := current[path], step.Next[path]
			prop := CapacityProp(k.partition)
			if cur == next && (enc.Mode != schedconf.ModeAbsolute || values[path] == base[schedconf.Key(path, prop)]) {
				continue // absolute children follow a moved parent even at the same share
			}
			from := base[schedconf.Key(path, prop)]
			if from == "" {
				from = FormatPercent(cur)
			}
			desired[schedconf.Key(path, prop)] = values[path]
			plan.Changes = append(plan.Changes, Change{
				Queue: path, Partition: k.partition, Property: prop,
				From: from, To: values[path],
				Limited: step.Limited, Reason: reasonOf(path),
			})
		}
	}

	for _, path := range SortedKeys(targets) {
		t := targets[path]
		q := tree.ByPath[path]
		for _, part := range SortedKeys(t.MaxCapacity) {
			if e, ok := t.Encoding[part]; ok && e.Mode != schedconf.ModePercentage {
				continue // maximum-capacity stays in the admin's own terms
			}
			prop := MaxCapacityProp(part)
			next := t.MaxCapacity[part]
			// maximum-capacity may never fall below the capacity just planned.
			if c, err := strconv.ParseFloat(desired[schedconf.Key(path, CapacityProp(part))], 64); err == nil && next < c {
				next = c
			}
			cur := MaxPercentOf(q, part)
			if abs(next-cur) < rules.HysteresisPercent && next >= cur {
				continue
			}
			if cur == next {
				continue
			}
			desired[schedconf.Key(path, prop)] = FormatPercent(next)
			plan.Changes = append(plan.Changes, Change{Queue: path, Partition: part, Property: prop,
				From: FormatPercent(cur), To: FormatPercent(next), Reason: t.Reason})
		}
		if t.AccessibleLabels != nil {
			next := strings.Join(t.AccessibleLabels, ",")
			cur := base[schedconf.Key(path, "accessible-node-labels")]
			if next != cur {
				desired[schedconf.Key(path, "accessible-node-labels")] = next
				plan.Changes = append(plan.Changes, Change{Queue: path, Property: "accessible-node-labels", From: cur, To: next, Reason: t.Reason})
			}
		}
		if t.DefaultLabelExpression != nil {
			next := *t.DefaultLabelExpression
			cur := base[schedconf.Key(path, "default-node-label-expression")]
			if next != cur {
				if next == "" {
					delete(desired, schedconf.Key(path, "default-node-label-expression"))
				} else {
					desired[schedconf.Key(path, "default-node-label-expression")] = next
				}
				plan.Changes = append(plan.Changes, Change{Queue: path, Partition: next, Property: "default-node-label-expression", From: cur, To: next, Reason: t.Reason})
			}
		}
	}
	for _, path := range SortedKeys(targets) {
		t := targets[path]
		if t.DisablePreemption == nil {
			continue
		}
		key := schedconf.Key(path, DisablePreemptionProp)
		cur := base[key]
		if *t.DisablePreemption {
			if cur != "true" {
				desired[key] = "true"
				plan.Changes = append(plan.Changes, Change{Queue: path, Property: DisablePreemptionProp, From: cur, To: "true", Reason: t.Reason})
			}
		} else if cur != "" {
			delete(desired, key)
			plan.Changes = append(plan.Changes, Change{Queue: path, Property: DisablePreemptionProp, From: cur, To: "", Reason: t.Reason})
		}
	}
	plan.Desired = desired
	plan.Mutation = schedconf.Diff(base, desired)
	seen := map[string]bool{}
	for _, c := range plan.Changes {
		if c.Reason != "" && !seen[c.Reason] {
			seen[c.Reason] = true
			plan.Reasons = append(plan.Reasons, c.Reason)
		}
	}
	return plan, nil
}

// GlobalChange is a scheduler-wide property a decision wants set.
type GlobalChange struct {
	Key    string // full property name
	Value  string
	Reason string
}

// SetGlobals adds scheduler-wide properties to the plan (global-updates of
// the same mutation, so they apply atomically with the queue changes).
func (p *Plan) SetGlobals(gs []GlobalChange) {
	changed := false
	for _, g := range gs {
		if p.Base[g.Key] == g.Value {
			continue
		}
		p.Desired[g.Key] = g.Value
		p.Changes = append(p.Changes, Change{Property: g.Key, From: p.Base[g.Key], To: g.Value, Reason: g.Reason})
		p.Reasons = append(p.Reasons, g.Reason)
		changed = true
	}
	if changed {
		p.Mutation = schedconf.Diff(p.Base, p.Desired)
	}
}

// capacityProp is the queue-relative property of a partition's capacity.
func CapacityProp(partition string) string {
	if partition == "" {
		return "capacity"
	}
	return "accessible-node-labels." + partition + ".capacity"
}

// maxCapacityProp is the queue-relative property of a partition's maximum.
func MaxCapacityProp(partition string) string {
	if partition == "" {
		return "maximum-capacity"
	}
	return "accessible-node-labels." + partition + ".maximum-capacity"
}

// percentOf is a queue's configured percentage in a partition (0 when it is
// unset or not in percentage mode).
func PercentOf(q *schedconf.Queue, partition string) float64 {
	v, ok := q.Capacity[partition]
	if !ok || v.Mode != schedconf.ModePercentage {
		return 0
	}
	return v.Percent
}

// maxPercentOf is a queue's configured maximum-capacity (100 when unset).
func MaxPercentOf(q *schedconf.Queue, partition string) float64 {
	v, ok := q.MaxCapacity[partition]
	if !ok || v.Mode != schedconf.ModePercentage {
		return 100
	}
	return v.Percent
}

// formatPercent writes a percentage the way an admin would (no trailing zeros).
func FormatPercent(v float64) string {
	return strconv.FormatFloat(Round2(v), 'f', -1, 64)
}

func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
