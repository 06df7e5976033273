// Package sim is the mini cluster's simulation core: a discrete-event model,
// in virtual time, of a YARN cluster running the Capacity Scheduler and
// MapReduce jobs on heterogeneous nodes. It implements rmweb.State, so the
// REST handlers in testenv/rmweb serve it in Hadoop's wire formats.
//
// It is a STAND-IN for Apache Hadoop, which cannot run where this project is
// built and tested. What it models, after CapacityScheduler.md, NodeLabel.md
// and the Capacity Scheduler sources: a queue tree read from the
// yarn.scheduler.capacity.* properties (via yarn/schedconf, so a mutation
// re-initialises the queues as the RM does); per node-label partition
// guaranteed capacity and elastic borrowing up to maximum-capacity;
// exclusive partitions (only requests naming the label) and non-exclusive
// ones (idle resources lent to default-partition requests, never for an
// AM, and only to a request that has missed as many scheduling
// opportunities as the cluster has nodes since its last default-partition
// container: RegularContainerAllocator's non-partitioned-first rule); the request's
// partition re-read from the queue's default-node-label-expression at every
// allocation (SchedulerUtils.normalizeNodeLabelExpressionInRequest);
// allocation on node heartbeats (1 s), parents ordering children by
// utilisation, leaves ordering apps by priority then FIFO; node-locality
// delay in missed scheduling opportunities, capped at the node count as
// RegularContainerAllocator caps it; maximum-am-resource-percent;
// MapReduce AMs, maps over HDFS blocks (replicas placed rack-aware on
// DataNode hosts, within a job's input_racks when the scenario names them;
// node types can be kept to some racks: placement.go) and reduces with
// slow-start.
//
// Luck (task-time noise, replica placement) is drawn per thing it is for,
// keyed by the job and task (luck.go): two runs of the same arrivals under
// different configurations draw the same noise for the same task attempt
// and the same hosts for the same block (common random numbers), so what
// differs between them is what the configurations did.
//
// With a scenario's yarn_site switching the monitor on, inter-queue
// preemption after ProportionalCapacityPreemptionPolicy (preempt.go); with
// its mapred_site switching mapreduce.map.speculative on, a simple model of
// MapReduce's speculative map attempts (speculate.go).
//
// What it does not model: intra-queue preemption, reservations, user limits
// (user-limit-factor), DRF beyond "all three resources must fit", container
// failures other than node loss and preemption, speculative reduces, and
// the AM's own resource negotiation latency.
package sim
