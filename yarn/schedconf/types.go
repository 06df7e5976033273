// Package schedconf models the Capacity Scheduler's configuration as the
// scheduler-conf REST API exposes it: a flat map of
// yarn.scheduler.capacity.* properties (ConfInfo), the queue tree it
// describes, the SchedConfUpdateInfo mutation (add-queue, update-queue,
// remove-queue, global-updates), and the checks the Capacity Scheduler runs
// when it re-initialises its queues (CapacitySchedulerConfigValidator,
// ParentQueue.setChildQueues, CapacitySchedulerConfiguration).
//
// It is pure: the mini cluster uses it as its RM's validator and queue
// model (ApplyAsHadoop is the RM's own, lenient behaviour), and the sidecar
// uses it to validate a plan locally (Apply, CheckMutation, Validate) before
// it asks the RM's own POST /scheduler-conf/validate.
package schedconf

// Prefix starts every Capacity Scheduler property.
const Prefix = "yarn.scheduler.capacity."

// Conf is the scheduler configuration: full property name → value, as in
// GET /ws/v1/cluster/scheduler-conf.
type Conf map[string]string

// Mode is how a capacity value is expressed.
type Mode string

// Capacity modes (CapacityScheduler.md "Queue Properties").
const (
	ModePercentage Mode = "percentage"
	ModeWeight     Mode = "weight"   // "2w"
	ModeAbsolute   Mode = "absolute" // "[memory=10240,vcores=12,yarn.io/gpu=2]"
)

// CapacityValue is one parsed capacity or maximum-capacity value.
type CapacityValue struct {
	Mode     Mode
	Percent  float64          // ModePercentage: 0..100
	Weight   float64          // ModeWeight
	Absolute map[string]int64 // ModeAbsolute: memory (MB), vcores, yarn.io/gpu
	Raw      string
}

// Queue is one queue of the tree with its configured and derived values.
// Partition keys are node-label names, "" for the default partition.
type Queue struct {
	Path     string
	Name     string
	Parent   *Queue
	Children []*Queue
	State    string // RUNNING (default) or STOPPED

	Capacity    map[string]CapacityValue // configured, per partition
	MaxCapacity map[string]CapacityValue // configured, per partition (absent = 100%)

	AccessibleLabels       []string // "*" = all; inherited from the parent when unset
	DefaultLabelExpression string
	UserLimitFactor        float64 // default 1
	MaxAMResourcePercent   float64 // default 0.1
	OrderingPolicy         string  // fifo (default) or fair
	DefaultAppPriority     int
	MaxApplications        int

	// Derived by ParseTree: share of the whole partition, 0..1.
	AbsCapacity    map[string]float64
	AbsMaxCapacity map[string]float64
}

// IsLeaf reports whether the queue has no children.
func (q *Queue) IsLeaf() bool { return len(q.Children) == 0 }

// Tree is the queue hierarchy a Conf describes.
type Tree struct {
	Root   *Queue
	ByPath map[string]*Queue
	// Labels are the partitions the tree's capacities mention, plus "".
	Labels []string
}

// QueueUpdate is one add-queue or update-queue entry: a full queue path and
// params relative to the queue (capacity, accessible-node-labels.gpu.capacity,
// state, ...). An empty value unsets the key (update-queue).
type QueueUpdate struct {
	Queue  string
	Params map[string]string
}

// Mutation is a SchedConfUpdateInfo: one transaction of the scheduler-conf API.
type Mutation struct {
	AddQueue      []QueueUpdate
	UpdateQueue   []QueueUpdate
	RemoveQueue   []string
	GlobalUpdates map[string]string // full property names
}

// ValidationError is a configuration the Capacity Scheduler would refuse.
// Message is Hadoop's own text (e.g. "Illegal capacity sum of 1.1 for
// children of queue root for label=. It should be either 0 or 1.0").
type ValidationError struct {
	Queue   string
	Message string
}

func (e *ValidationError) Error() string { return e.Message }
