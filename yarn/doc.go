// Package yarn is the sidecar's client for YARN's REST APIs: the
// ResourceManager (/ws/v1/cluster: nodes, labels, scheduler, apps,
// scheduler-conf), the MapReduce ApplicationMaster behind the RM web proxy
// and the JobHistory server. It decodes Hadoop 3.4's JSON into typed views
// and builds a cluster.Snapshot (observe.go). Every call has a timeout, a
// response-size cap and a context; idempotent GETs are retried with
// backoff; errors name the endpoint and what was wrong.
//
// At scale (issue 19): large answers are decoded from the response stream,
// apps and nodes element by element (stream.go); apps are placed per node
// type from resourceUsagesByPartition where a partition holds one type,
// and listed per node only on partitions that mix types, within a
// per-cycle request budget (placement_types.go); finished jobs are read
// from JobHistory through a sample of their tasks (mapreduce.go).
package yarn
