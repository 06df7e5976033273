// Package decidefix holds the fixtures the decision's tests
// (sidecar/decide) share with the plumbing's (sidecar): queue trees, the
// shield tests' two-queue cluster and a class model. Test helpers are not
// exported across packages, so the one copy lives here.
package decidefix

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

const pre = schedconf.Prefix

// NestedConf is root.{prod.{etl,reports}, dev.{adhoc,ml}} in the given
// capacity values (percentages, weights or absolutes).
func NestedConf(prod, dev, etl, reports, adhoc, ml string) schedconf.Conf {
	return schedconf.Conf{
		pre + "root.queues": "prod,dev", pre + "root.prod.queues": "etl,reports", pre + "root.dev.queues": "adhoc,ml",
		pre + "root.prod.capacity": prod, pre + "root.dev.capacity": dev,
		pre + "root.prod.etl.capacity": etl, pre + "root.prod.reports.capacity": reports,
		pre + "root.dev.adhoc.capacity": adhoc, pre + "root.dev.ml.capacity": ml,
	}
}

// MustTree parses c or fails the test.
func MustTree(t *testing.T, c schedconf.Conf) *schedconf.Tree {
	t.Helper()
	tree, err := schedconf.ParseTree(c)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// ShieldFixture is the two-queue cluster the shield tests share: root.a
// and root.b at 50% of the default and of a gpu partition; snap(usedGPU)
// has a's one running app and a holding usedGPU MB of gpu.
func ShieldFixture() (schedconf.Conf, func(usedGPU int64) cluster.Snapshot) {
	live := schedconf.Conf{
		pre + "root.queues":                                "a,b",
		pre + "root.accessible-node-labels":                "*",
		pre + "root.accessible-node-labels.gpu.capacity":   "100",
		pre + "root.a.capacity":                            "50",
		pre + "root.b.capacity":                            "50",
		pre + "root.a.accessible-node-labels":              "gpu",
		pre + "root.b.accessible-node-labels":              "gpu",
		pre + "root.a.accessible-node-labels.gpu.capacity": "50",
		pre + "root.b.accessible-node-labels.gpu.capacity": "50",
	}
	snap := func(usedGPU int64) cluster.Snapshot {
		return cluster.Snapshot{
			Partitions: []cluster.Partition{{Name: "", Total: cluster.Resource{MemoryMB: 100_000}}, {Name: "gpu", Total: cluster.Resource{MemoryMB: 100_000}}},
			Queues: []cluster.Queue{{Path: "root.a", Name: "a", Leaf: true, ByPartition: map[string]cluster.QueueCapacity{"gpu": {Used: cluster.Resource{MemoryMB: usedGPU}}}},
				{Path: "root.b", Name: "b", Leaf: true}},
			Apps: []cluster.App{{ID: "app_a", Queue: "root.a", State: cluster.AppRunning, Tags: []string{"jobclass=x"}}}}
	}
	return live, snap
}

// MapModel is class x's model with maps of the given mean (seconds).
func MapModel(mean float64) func() map[string]deadline.PhaseModel {
	return func() map[string]deadline.PhaseModel {
		return map[string]deadline.PhaseModel{"x": {Map: deadline.LogNormal{Mu: math.Log(mean)}}}
	}
}
