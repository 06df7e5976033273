package yarn

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// confQueueJSON is the part of a /scheduler queue that reflects its
// configuration (not its use): what ConfFromScheduler rebuilds the
// scheduler-conf properties from.
type confQueueJSON struct {
	Type                       string             `json:"type"`
	QueueName                  string             `json:"queueName"`
	QueuePath                  string             `json:"queuePath"` // 3.4
	State                      string             `json:"state"`
	Mode                       string             `json:"mode"` // 3.4: percentage, weight, absolute, mixed
	IsAbsoluteResource         jerseyBool         `json:"isAbsoluteResource"`
	NodeLabels                 jerseyList[string] `json:"nodeLabels"`
	DefaultNodeLabelExpression string             `json:"defaultNodeLabelExpression"`
	PreemptionDisabled         *jerseyBool        `json:"preemptionDisabled"`
	UserLimitFactor            *jerseyFloat       `json:"userLimitFactor"`
	MaxAMResourceLimit         *jerseyFloat       `json:"configuredMaxAMResourceLimit"`
	OrderingPolicyInfo         string             `json:"orderingPolicyInfo"`
	Queues                     *struct {
		Queue jerseyList[confQueueJSON] `json:"queue"`
	} `json:"queues"`
	Capacities *struct {
		ByPartition jerseyList[confPartitionJSON] `json:"queueCapacitiesByPartition"`
	} `json:"capacities"`
}

type confPartitionJSON struct {
	PartitionName string      `json:"partitionName"`
	Capacity      jerseyFloat `json:"capacity"`
	MaxCapacity   jerseyFloat `json:"maxCapacity"`
	// Weight is 3.4's (-1 when the queue is not in weight mode; absent on 3.3,
	// which has no weight mode).
	Weight                *jerseyFloat  `json:"weight"`
	ConfiguredMinResource *resourceJSON `json:"configuredMinResource"`
	ConfiguredMaxResource *resourceJSON `json:"configuredMaxResource"`
}

// ConfFromScheduler rebuilds the live scheduler configuration from GET
// /ws/v1/cluster/scheduler, for an RM whose configuration store is the file
// store (scheduler-conf answers 400 there; recorded on 3.3.6). See
// ConfFromSchedulerBody for what it can and cannot recover.
func (c *Client) ConfFromScheduler(ctx context.Context) (schedconf.Conf, error) {
	var body string
	if err := c.rmGet(ctx, "/ws/v1/cluster/scheduler", nil, &body); err != nil {
		return nil, err
	}
	conf, err := ConfFromSchedulerBody([]byte(body))
	if err != nil {
		return nil, fmt.Errorf("GET /ws/v1/cluster/scheduler: %w", err)
	}
	return conf, nil
}

// ConfFromSchedulerBody turns a /scheduler answer into scheduler-conf
// properties: the queue tree (queues), per partition capacity and
// maximum-capacity (percentages, 3.4 weights "Nw", absolute resources
// "[memory=..,vcores=..]" from configuredMin/MaxResource), accessible
// labels, default-node-label-expression, state, user-limit-factor,
// maximum-am-resource-percent, ordering-policy and disable_preemption.
//
// The RM keeps capacities as Java floats and multiplies by 100 in float, so
// 60 reads 60.000004 (recorded); percentages are rounded to 4 decimals,
// which gives back any value an admin or the sidecar (2 decimals) wrote.
//
// What it cannot recover: scheduler-wide keys the answer does not carry
// (node-locality-delay, rack-locality-full-reset, resource-calculator...),
// ACLs and limits the sidecar never changes. preemptionDisabled is the
// effective flag (the monitor's state and inheritance folded in): when every
// leaf says true the monitor is taken to be off and no disable_preemption is
// written; otherwise a leaf that says true gets disable_preemption=true.
func ConfFromSchedulerBody(body []byte) (schedconf.Conf, error) {
	var doc struct {
		Scheduler struct {
			SchedulerInfo *confQueueJSON `json:"schedulerInfo"`
		} `json:"scheduler"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decode scheduler answer: %w", err)
	}
	root := doc.Scheduler.SchedulerInfo
	if root == nil {
		return nil, fmt.Errorf("no schedulerInfo")
	}
	if root.Type != "" && root.Type != "capacityScheduler" {
		return nil, fmt.Errorf("scheduler is %q; yarn-sidecar steers the Capacity Scheduler only", root.Type)
	}
	conf := schedconf.Conf{}
	var leaves []*confQueueJSON
	var walk func(q *confQueueJSON, path string)
	walk = func(q *confQueueJSON, path string) {
		if q.Queues != nil && len(q.Queues.Queue) > 0 {
			var names []string
			for i := range q.Queues.Queue {
				names = append(names, q.Queues.Queue[i].QueueName)
			}
			conf[schedconf.Key(path, "queues")] = strings.Join(names, ",")
		} else if path != "root" {
			leaves = append(leaves, q)
		}
		if q.Capacities != nil {
			for _, p := range q.Capacities.ByPartition {
				capKey, maxKey := "capacity", "maximum-capacity"
				if p.PartitionName != "" {
					capKey = "accessible-node-labels." + p.PartitionName + ".capacity"
					maxKey = "accessible-node-labels." + p.PartitionName + ".maximum-capacity"
				}
				if path == "root" && p.PartitionName == "" {
					continue // root's default-partition capacity is always 100
				}
				c, m := partitionValues(q, p, path == "root")
				conf[schedconf.Key(path, capKey)] = c
				if m != "" {
					conf[schedconf.Key(path, maxKey)] = m
				}
			}
		}
		if path != "root" {
			if len(q.NodeLabels) > 0 {
				conf[schedconf.Key(path, "accessible-node-labels")] = strings.Join(q.NodeLabels, ",")
			}
			if q.DefaultNodeLabelExpression != "" {
				conf[schedconf.Key(path, "default-node-label-expression")] = q.DefaultNodeLabelExpression
			}
			if q.State != "" && q.State != "RUNNING" {
				conf[schedconf.Key(path, "state")] = q.State
			}
		}
		if q.Queues != nil {
			for i := range q.Queues.Queue {
				c := &q.Queues.Queue[i]
				walk(c, path+"."+c.QueueName)
			}
		}
	}
	walk(root, "root")
	leafProps(conf, leaves)
	return conf, nil
}

// leafProps writes the leaf-only properties: user-limit-factor,
// ordering-policy, maximum-am-resource-percent (one global key when every
// leaf shares it) and disable_preemption.
func leafProps(conf schedconf.Conf, leaves []*confQueueJSON) {
	paths := leafPaths(conf)
	am := map[string]bool{}
	allDisabled := true
	for _, q := range leaves {
		if q.MaxAMResourceLimit != nil {
			am[javaFloatString(float64(*q.MaxAMResourceLimit), 6)] = true
		}
		if q.PreemptionDisabled == nil || !bool(*q.PreemptionDisabled) {
			allDisabled = false
		}
	}
	for i, q := range leaves {
		path := paths[i]
		if q.UserLimitFactor != nil && float64(*q.UserLimitFactor) != 1 {
			conf[schedconf.Key(path, "user-limit-factor")] = javaFloatString(float64(*q.UserLimitFactor), 6)
		}
		if q.OrderingPolicyInfo != "" && q.OrderingPolicyInfo != "fifo" {
			conf[schedconf.Key(path, "ordering-policy")] = q.OrderingPolicyInfo
		}
		if len(am) > 1 && q.MaxAMResourceLimit != nil {
			conf[schedconf.Key(path, "maximum-am-resource-percent")] = javaFloatString(float64(*q.MaxAMResourceLimit), 6)
		}
		if !allDisabled && q.PreemptionDisabled != nil && bool(*q.PreemptionDisabled) {
			conf[schedconf.Key(path, "disable_preemption")] = "true"
		}
	}
	if len(am) == 1 {
		for v := range am {
			conf[schedconf.Prefix+"maximum-am-resource-percent"] = v
		}
	}
}

// leafPaths lists the leaf queue paths of conf in the walk's order (depth
// first, children in their listed order), matching the leaves slice.
func leafPaths(conf schedconf.Conf) []string {
	var out []string
	var walk func(path string)
	walk = func(path string) {
		kids, ok := conf[schedconf.Key(path, "queues")]
		if !ok || kids == "" {
			if path != "root" {
				out = append(out, path)
			}
			return
		}
		for _, k := range strings.Split(kids, ",") {
			walk(path + "." + k)
		}
	}
	walk("root")
	return out
}

// partitionValues formats one partition's capacity and maximum-capacity in
// the queue's mode: weight (3.4's weight > 0), absolute (isAbsoluteResource,
// on 3.3 and 3.4: the configured minimum resource), else percentage. The
// root is always a percentage: its configured resources read the whole
// cluster once queues are refreshed (recorded).
func partitionValues(q *confQueueJSON, p confPartitionJSON, root bool) (capacity, maxCapacity string) {
	switch {
	case root:
		return pctString(float64(p.Capacity)), pctString(float64(p.MaxCapacity))
	case p.Weight != nil && float64(*p.Weight) > 0:
		capacity = javaFloatString(float64(*p.Weight), 6) + "w"
	case bool(q.IsAbsoluteResource) || q.Mode == "absolute":
		capacity = absoluteString(p.ConfiguredMinResource)
	default:
		capacity = pctString(float64(p.Capacity))
	}
	if r := p.ConfiguredMaxResource; r != nil && (r.Memory > 0 || r.VCores > 0) {
		return capacity, absoluteString(r)
	}
	return capacity, pctString(float64(p.MaxCapacity))
}

// pctString rounds a percentage the RM computed in float to 4 decimals.
func pctString(v float64) string { return javaFloatString(v, 4) }

func javaFloatString(v float64, decimals int) string {
	scale := math.Pow(10, float64(decimals))
	return strconv.FormatFloat(math.Round(v*scale)/scale, 'f', -1, 64)
}

// absoluteString writes a resource as the Capacity Scheduler's absolute
// form, memory and vcores first, then other resources by name.
func absoluteString(r *resourceJSON) string {
	if r == nil {
		return "[memory=0,vcores=0]"
	}
	parts := []string{fmt.Sprintf("memory=%d", int64(r.Memory)), fmt.Sprintf("vcores=%d", int64(r.VCores))}
	others := map[string]int64{}
	if r.GPUs > 0 {
		others["yarn.io/gpu"] = int64(r.GPUs)
	}
	names := make([]string, 0, len(others))
	for k := range others {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s=%d", k, others[k]))
	}
	return "[" + strings.Join(parts, ",") + "]"
}
