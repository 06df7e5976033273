// Package yarn is the sidecar's client for YARN's REST APIs: the
// ResourceManager (/ws/v1/cluster: nodes, labels, scheduler, apps,
// scheduler-conf), the MapReduce ApplicationMaster behind the RM web proxy
// and the JobHistory server. It decodes Hadoop 3.4's JSON into typed views
// and builds a cluster.Snapshot (observe.go). Every call has a timeout, a
// response-size cap and a context; idempotent GETs are retried with
// backoff; errors name the endpoint and what was wrong.
package yarn
