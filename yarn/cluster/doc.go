// Package cluster holds the sidecar's view of a YARN cluster at one instant:
// nodes, node-label partitions, the Capacity Scheduler queue tree, running
// applications and their MapReduce task attempts.
//
// It is data only (stdlib imports, no I/O) so that the decision packages
// (progress, affinity, deadline, calibrate) can take a Snapshot without
// importing a REST client, the way Nomad keeps its structs apart from its
// state store. The yarn package fills a Snapshot from the ResourceManager,
// MapReduce AM and JobHistory REST APIs; tests build one by hand or from the
// testenv mini cluster.
package cluster
