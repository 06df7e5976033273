package yarn

import (
	"context"
	"fmt"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type queueJSON struct {
	Type                       string             `json:"type"`
	QueueName                  string             `json:"queueName"`
	QueuePath                  string             `json:"queuePath"`
	State                      string             `json:"state"`
	Mode                       string             `json:"mode"`
	NumApplications            jerseyInt          `json:"numApplications"`
	NumContainers              jerseyInt          `json:"numContainers"`
	UserLimitFactor            jerseyFloat        `json:"userLimitFactor"`
	NodeLabels                 jerseyList[string] `json:"nodeLabels"`
	DefaultNodeLabelExpression string             `json:"defaultNodeLabelExpression"`
	// PreemptionDisabled is set on leaf queues only (true when the RM's
	// preemption monitor is off or the queue disables it).
	PreemptionDisabled *jerseyBool `json:"preemptionDisabled"`
	Queues             *struct {
		Queue jerseyList[queueJSON] `json:"queue"`
	} `json:"queues"`
	Capacities *struct {
		ByPartition jerseyList[struct {
			PartitionName        string      `json:"partitionName"`
			Capacity             jerseyFloat `json:"capacity"`
			UsedCapacity         jerseyFloat `json:"usedCapacity"`
			MaxCapacity          jerseyFloat `json:"maxCapacity"`
			AbsoluteCapacity     jerseyFloat `json:"absoluteCapacity"`
			AbsoluteUsedCapacity jerseyFloat `json:"absoluteUsedCapacity"`
			AbsoluteMaxCapacity  jerseyFloat `json:"absoluteMaxCapacity"`
			Weight               jerseyFloat `json:"weight"`
			// ConfiguredMinResource's resource informations carry the
			// scheduler's minimum allocation (recorded on 3.3.6).
			ConfiguredMinResource *struct {
				ResourceInformations *struct {
					ResourceInformation jerseyList[allocationBoundsJSON] `json:"resourceInformation"`
				} `json:"resourceInformations"`
			} `json:"configuredMinResource"`
		}] `json:"queueCapacitiesByPartition"`
	} `json:"capacities"`
	Resources *struct {
		ByPartition jerseyList[struct {
			PartitionName string        `json:"partitionName"`
			Used          *resourceJSON `json:"used"`
			Pending       *resourceJSON `json:"pending"`
			Reserved      *resourceJSON `json:"reserved"`
			AMUsed        *resourceJSON `json:"amUsed"`
		}] `json:"resourceUsagesByPartition"`
	} `json:"resources"`
}

// allocationBoundsJSON is one resource information's name and the
// scheduler's minimum allocation of it.
type allocationBoundsJSON struct {
	Name              string    `json:"name"`
	MinimumAllocation jerseyInt `json:"minimumAllocation"`
}

// schedulerJSON is the body of /scheduler.
type schedulerJSON struct {
	Scheduler struct {
		SchedulerInfo *queueJSON `json:"schedulerInfo"`
	} `json:"scheduler"`
}

// Queues reads the Capacity Scheduler tree from /ws/v1/cluster/scheduler,
// flattened, with per-partition capacities and usage.
func (c *Client) Queues(ctx context.Context) ([]cluster.Queue, error) {
	qs, _, err := c.queues(ctx)
	return qs, err
}

// queues is Queues, also saying whether any leaf queue carried its use per
// partition (resources.resourceUsagesByPartition, 3.x): without it a
// partition's use can only come from the node listing.
func (c *Client) queues(ctx context.Context) ([]cluster.Queue, bool, error) {
	var body bodyDecoder[schedulerJSON]
	if err := c.rmGet(ctx, "/ws/v1/cluster/scheduler", nil, &body); err != nil {
		return nil, false, err
	}
	root := body.v.Scheduler.SchedulerInfo
	if root == nil {
		return nil, false, fmt.Errorf("GET /ws/v1/cluster/scheduler: no schedulerInfo")
	}
	if root.Type != "" && root.Type != "capacityScheduler" {
		return nil, false, fmt.Errorf("GET /ws/v1/cluster/scheduler: scheduler is %q; yarn-sidecar steers the Capacity Scheduler only", root.Type)
	}
	var out []cluster.Queue
	usage := false
	var walk func(q *queueJSON, parent string)
	walk = func(q *queueJSON, parent string) {
		path := q.QueuePath
		if path == "" {
			path = q.QueueName
			if parent != "" {
				path = parent + "." + q.QueueName
			}
		}
		cq := cluster.Queue{Path: path, Name: q.QueueName, State: q.State, Mode: q.Mode, AccessibleLabels: q.NodeLabels,
			DefaultLabelExpression: q.DefaultNodeLabelExpression, NumApplications: int(q.NumApplications), NumContainers: int(q.NumContainers),
			UserLimitFactor: float64(q.UserLimitFactor), ByPartition: map[string]cluster.QueueCapacity{}}
		if q.PreemptionDisabled != nil {
			d := bool(*q.PreemptionDisabled)
			cq.PreemptionDisabled = &d
		}
		if q.Capacities != nil {
			for _, p := range q.Capacities.ByPartition {
				cq.ByPartition[p.PartitionName] = cluster.QueueCapacity{Capacity: float64(p.Capacity), MaxCapacity: float64(p.MaxCapacity),
					AbsoluteCapacity: float64(p.AbsoluteCapacity), AbsoluteMaxCapacity: float64(p.AbsoluteMaxCapacity), UsedCapacity: float64(p.UsedCapacity),
					AbsoluteUsed: float64(p.AbsoluteUsedCapacity), Weight: float64(p.Weight)}
				if m := minimumAllocation(p.ConfiguredMinResource); m != nil && cq.MinimumAllocation == nil {
					cq.MinimumAllocation = m
				}
			}
		}
		if q.Resources != nil {
			usage = usage || (len(q.Resources.ByPartition) > 0 && (q.Queues == nil || len(q.Queues.Queue) == 0))
			for _, p := range q.Resources.ByPartition {
				pc := cq.ByPartition[p.PartitionName]
				pc.Used, pc.Pending, pc.Reserved, pc.AMUsed = p.Used.resource(), p.Pending.resource(), p.Reserved.resource(), p.AMUsed.resource()
				cq.ByPartition[p.PartitionName] = pc
			}
		}
		if q.Queues != nil && len(q.Queues.Queue) > 0 {
			for i := range q.Queues.Queue {
				cq.Children = append(cq.Children, q.Queues.Queue[i].QueueName)
			}
		} else {
			cq.Leaf = true
		}
		out = append(out, cq)
		if q.Queues != nil {
			for i := range q.Queues.Queue {
				walk(&q.Queues.Queue[i], path)
			}
		}
	}
	walk(root, "")
	return out, usage, nil
}

// minimumAllocation reads the scheduler's minimum memory and vcores from a
// configured resource's resource informations; nil when it has none above
// zero (the mini cluster, older RMs).
func minimumAllocation(r *struct {
	ResourceInformations *struct {
		ResourceInformation jerseyList[allocationBoundsJSON] `json:"resourceInformation"`
	} `json:"resourceInformations"`
}) *cluster.Resource {
	if r == nil || r.ResourceInformations == nil {
		return nil
	}
	var m cluster.Resource
	for _, ri := range r.ResourceInformations.ResourceInformation {
		switch ri.Name {
		case "memory-mb":
			m.MemoryMB = int64(ri.MinimumAllocation)
		case "vcores":
			m.VCores = int64(ri.MinimumAllocation)
		}
	}
	if m.MemoryMB <= 0 {
		return nil
	}
	return &m
}
