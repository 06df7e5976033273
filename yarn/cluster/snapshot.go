package cluster

import (
	"sort"
	"time"
)

// DefaultPartition is the name YARN gives the partition of unlabelled nodes
// (an empty label, shown as "" in queueCapacitiesByPartition).
const DefaultPartition = ""

// Resource is an amount of the three resource types the sidecar plans with.
// GPUs are YARN's `yarn.io/gpu` resource type.
type Resource struct {
	MemoryMB int64 `json:"memoryMB"`
	VCores   int64 `json:"vCores"`
	GPUs     int64 `json:"gpus"`
}

// Add returns r + o.
func (r Resource) Add(o Resource) Resource {
	return Resource{r.MemoryMB + o.MemoryMB, r.VCores + o.VCores, r.GPUs + o.GPUs}
}

// Sub returns r - o.
func (r Resource) Sub(o Resource) Resource {
	return Resource{r.MemoryMB - o.MemoryMB, r.VCores - o.VCores, r.GPUs - o.GPUs}
}

// IsZero reports whether r has no resource of any type.
func (r Resource) IsZero() bool { return r == Resource{} }

// Fits returns how many whole containers of size c fit in r (the YARN
// counterpart of Lee's "slots", digest 000 §5.1). A zero-sized dimension of c
// does not constrain.
func (r Resource) Fits(c Resource) int64 {
	n := int64(-1)
	limit := func(have, need int64) {
		if need <= 0 {
			return
		}
		k := have / need
		if n < 0 || k < n {
			n = k
		}
	}
	limit(r.MemoryMB, c.MemoryMB)
	limit(r.VCores, c.VCores)
	limit(r.GPUs, c.GPUs)
	if n < 0 {
		return 0
	}
	return n
}

// NodeState is a NodeManager state as the RM reports it.
type NodeState string

// NodeManager states the sidecar distinguishes (NodeState.java).
const (
	NodeRunning         NodeState = "RUNNING"
	NodeUnhealthy       NodeState = "UNHEALTHY"
	NodeLost            NodeState = "LOST"
	NodeDecommissioning NodeState = "DECOMMISSIONING"
	NodeDecommissioned  NodeState = "DECOMMISSIONED"
)

// Node is one NodeManager.
type Node struct {
	ID          string    `json:"id"`   // "host:port", the NM RPC address (RM node id)
	Host        string    `json:"host"` // nodeHostName
	Rack        string    `json:"rack"`
	State       NodeState `json:"state"`
	HTTPAddress string    `json:"httpAddress"` // nodeHTTPAddress, "host:8042"
	// Partition is the node's node-label partition ("" = default). A node
	// holds at most one partition label in YARN.
	Partition     string   `json:"partition"`
	Total         Resource `json:"total"`
	Used          Resource `json:"used"`
	NumContainers int      `json:"numContainers"`
}

// Usable reports whether the scheduler can place containers on the node.
func (n Node) Usable() bool { return n.State == NodeRunning }

// Partition is a node-label partition with the resources of its usable nodes.
type Partition struct {
	Name      string   `json:"name"`
	Exclusive bool     `json:"exclusive"`
	Total     Resource `json:"total"`
	Used      Resource `json:"used"`
	NodeIDs   []string `json:"nodeIds"`
}

// QueueCapacity is a queue's configured and effective capacity in one
// partition. Percentages are 0-100 as in the RM's JSON.
type QueueCapacity struct {
	Capacity            float64  `json:"capacity"`            // % of parent, configured
	MaxCapacity         float64  `json:"maxCapacity"`         // % of parent
	AbsoluteCapacity    float64  `json:"absoluteCapacity"`    // % of the partition
	AbsoluteMaxCapacity float64  `json:"absoluteMaxCapacity"` // % of the partition
	UsedCapacity        float64  `json:"usedCapacity"`        // % of own capacity
	AbsoluteUsed        float64  `json:"absoluteUsedCapacity"`
	Weight              float64  `json:"weight"` // -1 unless weight mode
	Used                Resource `json:"used"`
	Pending             Resource `json:"pending"`
	// Reserved is counted in Used: the Capacity Scheduler books a
	// reservation against the queue (LeafQueue.apply allocates the
	// allocated-or-reserved resource), not against the node.
	Reserved Resource `json:"reserved"`
	// AMUsed is what the queue's AM containers hold there (leaf queues,
	// 3.x; zero when the RM does not say).
	AMUsed Resource `json:"amUsed,omitzero"`
}

// Queue is one Capacity Scheduler queue.
type Queue struct {
	Path     string   `json:"path"` // full path, e.g. root.prod.etl
	Name     string   `json:"name"` // short name
	Leaf     bool     `json:"leaf"`
	State    string   `json:"state"` // RUNNING, STOPPED, DRAINING
	Children []string `json:"children,omitempty"`
	Mode     string   `json:"mode,omitempty"` // percentage, weight, absolute
	// ByPartition is keyed by partition name ("" = default).
	ByPartition map[string]QueueCapacity `json:"byPartition"`
	// MinimumAllocation is the scheduler's minimum container as the queue
	// reports it (3.x: the resource informations of its configured
	// resources carry minimumAllocation, recorded 256 MB / 1 vcore on
	// 3.3.6); nil when not reported.
	MinimumAllocation *Resource `json:"minimumAllocation,omitempty"`
	// AccessibleLabels are the labels the queue may use; "*" means all.
	AccessibleLabels       []string `json:"accessibleLabels,omitempty"`
	DefaultLabelExpression string   `json:"defaultNodeLabelExpression,omitempty"`
	NumApplications        int      `json:"numApplications"`
	NumContainers          int      `json:"numContainers"`
	UserLimitFactor        float64  `json:"userLimitFactor,omitempty"`
	// PreemptionDisabled is the leaf's preemptionDisabled from the
	// scheduler REST answer (nil when the RM does not say): true when the
	// preemption monitor is off or the queue sets disable_preemption.
	PreemptionDisabled *bool `json:"preemptionDisabled,omitempty"`
}

// CanUse reports whether the queue may run containers in the partition.
func (q Queue) CanUse(partition string) bool {
	if partition == DefaultPartition {
		return true
	}
	for _, l := range q.AccessibleLabels {
		if l == "*" || l == partition {
			return true
		}
	}
	return false
}

// AppState is a YARN application state.
type AppState string

// Application states (YarnApplicationState.java).
const (
	AppNew       AppState = "NEW"
	AppSubmitted AppState = "SUBMITTED"
	AppAccepted  AppState = "ACCEPTED"
	AppRunning   AppState = "RUNNING"
	AppFinished  AppState = "FINISHED"
	AppFailed    AppState = "FAILED"
	AppKilled    AppState = "KILLED"
)

// App is one YARN application, with its MapReduce job when it is one and the
// AM (or JobHistory) could be read.
type App struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	User string `json:"user"`
	// Queue is the leaf queue's full path once Snapshot.ResolveAppQueues
	// ran (yarn.Observe runs it); before, what the RM reports: the short
	// name on Hadoop 3.3 ("crypto"), the path on later releases.
	Queue               string    `json:"queue"`
	State               AppState  `json:"state"`
	Type                string    `json:"applicationType"`
	Priority            int       `json:"priority"`
	Tags                []string  `json:"tags,omitempty"` // applicationTags, lower-cased by YARN
	Progress            float64   `json:"progress"`       // 0-100
	StartedTime         time.Time `json:"startedTime"`
	FinishedTime        time.Time `json:"finishedTime,omitempty"`
	TrackingURL         string    `json:"trackingUrl,omitempty"`
	NodeLabelExpression string    `json:"nodeLabelExpression,omitempty"`
	Allocated           Resource  `json:"allocated"`
	RunningContainers   int       `json:"runningContainers"`
	// AMNodeID is the node id of the app's AM container (the RM's
	// masterNodeId); empty before the AM is placed.
	AMNodeID string `json:"amNodeId,omitempty"`
	// AMContainerID is the current attempt's AM container (from the RM's
	// amContainerLogs); empty until the AM is placed.
	AMContainerID string `json:"amContainerId,omitempty"`
	// ContainersByNode counts the containers the app holds per node id, from
	// its running task attempts plus its AM container.
	ContainersByNode map[string]int `json:"containersByNode,omitempty"`
	// ContainersByType counts the app's containers per node type, when
	// observe was given the node classifier; Placement says how exact.
	ContainersByType map[string]int `json:"containersByType,omitempty"`
	// Placement is how the app's containers were located (empty: by
	// per-node listing, without node types).
	Placement PlacementSource `json:"placement,omitempty"`
	// UsageByPartition is the app's resourceInfo.resourceUsagesByPartition
	// (Hadoop 3.3+), keyed by partition ("" = default): what it holds and
	// still asks for in each node-label partition. Nil when the RM does not
	// send it.
	UsageByPartition map[string]AppPartitionUsage `json:"usageByPartition,omitempty"`
	// UsageEstimated: UsageByPartition was not read this snapshot nor kept
	// from an unchanged app's read, but its allocation split by what its
	// queue uses per partition (a lean apps read, issue 19); only Used
	// (and AMUsed, kept while the AM container is) is set, and its
	// placement is never exact by partition.
	UsageEstimated bool `json:"usageEstimated,omitempty"`
	// AMEstimated: the AMUsed in UsageByPartition was not read but is the
	// app's share of its queue's AM use in its AM node's partition (a
	// lean apps read whose AM container is not the one last read).
	AMEstimated bool `json:"amEstimated,omitempty"`
	// Preempted is nil until preemption took something from the app.
	Preempted *AppPreemption `json:"preempted,omitempty"`
	Job       *Job           `json:"job,omitempty"`
	// JobView says whether Job was read this cycle, kept from an earlier
	// read (JobReadAt), or is nil with only the RM's Progress to go on
	// (empty: jobs not observed, or not a MapReduce app).
	JobView   JobView   `json:"jobView,omitempty"`
	JobReadAt time.Time `json:"jobReadAt,omitzero"`
}

// PlacementSource says how an app's containers per node type were found.
type PlacementSource string

const (
	// PlacementListed: from the app's per-node container listing (exact
	// as of the listing, which is reused while the app's allocation is
	// unchanged).
	PlacementListed PlacementSource = "listed"
	// PlacementPartition: from the app's usage per partition, each of
	// which holds nodes of one type (exact, no listing needed).
	PlacementPartition PlacementSource = "partition"
	// PlacementEstimated: the app uses a partition that mixes node types
	// and its listing was over the cycle's request budget; the containers
	// there are split by the partition's type mix (its used memory per
	// type).
	PlacementEstimated PlacementSource = "estimated"
)

// Exact reports whether the placement was measured, not estimated.
func (p PlacementSource) Exact() bool { return p != PlacementEstimated }

// AppPreemption is what the scheduler's preemption took from an app so
// far (the RM's preempted* counters).
type AppPreemption struct {
	Resource        Resource `json:"resource"`
	NonAMContainers int      `json:"nonAMContainers"`
	AMContainers    int      `json:"amContainers"`
	MemorySeconds   int64    `json:"memorySeconds"` // MB·s
	VCoreSeconds    int64    `json:"vcoreSeconds"`
}

// AppPartitionUsage is an app's resources in one node-label partition.
type AppPartitionUsage struct {
	Used     Resource `json:"used"`
	Pending  Resource `json:"pending"`
	Reserved Resource `json:"reserved"`
	AMUsed   Resource `json:"amUsed"`
}

// Tag returns the value of a "key=value" application tag, if present.
func (a App) Tag(key string) (string, bool) {
	prefix := key + "="
	for _, t := range a.Tags {
		if len(t) > len(prefix) && t[:len(prefix)] == prefix {
			return t[len(prefix):], true
		}
	}
	return "", false
}

// Job is a MapReduce job as its AM or the JobHistory server reports it.
type Job struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	State            string    `json:"state"`
	StartTime        time.Time `json:"startTime"`
	FinishTime       time.Time `json:"finishTime,omitempty"`
	MapsTotal        int       `json:"mapsTotal"`
	MapsCompleted    int       `json:"mapsCompleted"`
	ReducesTotal     int       `json:"reducesTotal"`
	ReducesCompleted int       `json:"reducesCompleted"`
	ReducesRunning   int       `json:"reducesRunning,omitempty"` // from the AM
	// InputPaths come from mapreduce.input.fileinputformat.inputdir.
	InputPaths []string `json:"inputPaths,omitempty"`
	// ContainerSize is the map container request (mapreduce.map.memory.mb,
	// mapreduce.map.cpu.vcores, mapreduce.map.resource.yarn.io/gpu).
	ContainerSize Resource `json:"containerSize"`
	// ReduceContainerSize is the reduce container request
	// (mapreduce.reduce.memory.mb, cpu.vcores), read with ContainerSize.
	ReduceContainerSize Resource  `json:"reduceContainerSize"`
	Attempts            []Attempt `json:"attempts,omitempty"`
	// RunningMaps is the progress (0..1) of each running map, from the
	// AM's tasks (running jobs only).
	RunningMaps []float64 `json:"runningMaps,omitempty"`
	// RunningMapsElapsed are the seconds each running map has run (the
	// AM's tasks' elapsedTime), in RunningMaps' order: with its progress,
	// the task's own rate (STEAMEngine's linear extrapolation per task).
	RunningMapsElapsed []float64 `json:"runningMapsElapsed,omitempty"`
	// CompletedMaps are the seconds each finished map took, from the AM's
	// tasks (running jobs only): the job's own speed, where its
	// containers landed (online profiling, STEAMEngine).
	CompletedMaps []float64 `json:"completedMaps,omitempty"`
	// RunningReduces are the progress (0..1) and RunningReducesElapsed
	// the seconds run of each running reduce, and RunningReduceNodes the
	// node (HTTP host:port, "" unknown) of its running attempt, in one
	// order, from the AM (running jobs only): the node type a reduce
	// landed on sets its speed.
	RunningReduces        []float64 `json:"runningReduces,omitempty"`
	RunningReducesElapsed []float64 `json:"runningReducesElapsed,omitempty"`
	RunningReduceNodes    []string  `json:"runningReduceNodes,omitempty"`
}

// TaskType is MAP or REDUCE.
type TaskType string

// Task types as the MR REST API spells them.
const (
	TaskMap    TaskType = "MAP"
	TaskReduce TaskType = "REDUCE"
)

// Attempt is one MapReduce task attempt.
type Attempt struct {
	ID     string   `json:"id"`
	TaskID string   `json:"taskId"`
	JobID  string   `json:"jobId"`
	Type   TaskType `json:"type"`
	State  string   `json:"state"` // RUNNING, SUCCEEDED, FAILED, KILLED ...
	// NodeHTTPAddress is "host:8042"; NodeID is the RM node id matched on host.
	NodeHTTPAddress string        `json:"nodeHttpAddress"`
	NodeID          string        `json:"nodeId,omitempty"`
	Rack            string        `json:"rack,omitempty"`
	StartTime       time.Time     `json:"startTime"`
	FinishTime      time.Time     `json:"finishTime,omitempty"`
	Elapsed         time.Duration `json:"elapsed"`
	// Reduce phases (zero for maps).
	ShuffleElapsed time.Duration `json:"shuffleElapsed,omitempty"`
	MergeElapsed   time.Duration `json:"mergeElapsed,omitempty"`
	ReduceElapsed  time.Duration `json:"reduceElapsed,omitempty"`
	// HDFSBytesRead is the attempt's HDFS_BYTES_READ counter.
	HDFSBytesRead int64 `json:"hdfsBytesRead"`
	// CPUTime is the attempt's CPU_MILLISECONDS counter: the task JVM's
	// CPU time, so Elapsed − CPUTime is mostly time spent waiting on reads.
	CPUTime time.Duration `json:"cpuTime,omitempty"`
	// Speculative is set when the attempt is not the task's first.
	Speculative bool `json:"speculative,omitempty"`
}

// Succeeded reports whether the attempt finished successfully.
func (a Attempt) Succeeded() bool { return a.State == "SUCCEEDED" }

// LoadError records a part of the snapshot that could not be read, so a
// consumer sees what is missing rather than silently getting less.
type LoadError struct {
	What     string `json:"what"`     // e.g. "app application_1_0001 tasks"
	Endpoint string `json:"endpoint"` // the URL or path that failed
	Err      string `json:"error"`
}

// Snapshot is one consistent view of the cluster. Decision code takes it by
// value and never mutates it or reads the clock: Time is "now".
type Snapshot struct {
	Time        time.Time `json:"time"`
	RM          string    `json:"rm"` // which RM answered (HA)
	ConfVersion int64     `json:"schedulerConfVersion"`
	Nodes       []Node    `json:"nodes"`
	// NodesReadAt is when Nodes were read from the RM: Time when read for
	// this snapshot, earlier when the last listing was reused because the
	// cluster metrics said nothing changed (issue 19). Each node's Used
	// and NumContainers are as of then; Partitions' Used is current
	// either way.
	NodesReadAt time.Time `json:"nodesReadAt"`
	// NodesReused is true when Nodes are the listing of an earlier
	// snapshot (read at NodesReadAt), not read for this one.
	NodesReused bool        `json:"nodesReused,omitempty"`
	Partitions  []Partition `json:"partitions"`
	Queues      []Queue     `json:"queues"`
	Apps        []App       `json:"apps"`
	// Accepted are the apps whose AM has not registered yet (ACCEPTED):
	// listed apart from Apps, which are running, so that nothing counts
	// them as using the cluster.
	Accepted []App       `json:"accepted"`
	Errors   []LoadError `json:"errors"` // [] when every read succeeded (the README: empty lists print as [])
}

// Queue returns the queue with the given full path or short name.
func (s *Snapshot) Queue(name string) (Queue, bool) {
	for _, q := range s.Queues {
		if q.Path == name || q.Name == name {
			return q, true
		}
	}
	return Queue{}, false
}

// QueueIndex answers Queue from an index built once: for lookups per
// queue (a scan each is queues²; 200 queues at scale-10k). It reflects
// the queues as they were when built.
func (s *Snapshot) QueueIndex() func(name string) (Queue, bool) {
	byPath := make(map[string]int, len(s.Queues))
	byName := make(map[string]int, len(s.Queues))
	for i, q := range s.Queues {
		if _, ok := byPath[q.Path]; !ok {
			byPath[q.Path] = i
		}
		if _, ok := byName[q.Name]; !ok {
			byName[q.Name] = i
		}
	}
	queues := s.Queues
	return func(name string) (Queue, bool) {
		// Queue's answer: the first queue whose path or name matches.
		i, ok := byPath[name]
		if j, okName := byName[name]; okName && (!ok || j < i) {
			i, ok = j, true
		}
		if !ok {
			return Queue{}, false
		}
		return queues[i], true
	}
}

// LeafQueues returns the leaf queues sorted by path.
func (s *Snapshot) LeafQueues() []Queue {
	var out []Queue
	for _, q := range s.Queues {
		if q.Leaf {
			out = append(out, q)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// NodeByID indexes the snapshot's nodes by id.
func (s *Snapshot) NodeByID() map[string]Node {
	m := make(map[string]Node, len(s.Nodes))
	for _, n := range s.Nodes {
		m[n.ID] = n
	}
	return m
}

// Partition returns the named partition.
func (s *Snapshot) Partition(name string) (Partition, bool) {
	for _, p := range s.Partitions {
		if p.Name == name {
			return p, true
		}
	}
	return Partition{}, false
}

// RunningApps returns the apps in state RUNNING.
func (s *Snapshot) RunningApps() []App {
	var out []App
	for _, a := range s.Apps {
		if a.State == AppRunning {
			out = append(out, a)
		}
	}
	return out
}

// MinimumAllocation is the scheduler's minimum container as the first
// queue reporting one says; zero when none does.
func (s *Snapshot) MinimumAllocation() Resource {
	for _, q := range s.Queues {
		if q.MinimumAllocation != nil {
			return *q.MinimumAllocation
		}
	}
	return Resource{}
}
