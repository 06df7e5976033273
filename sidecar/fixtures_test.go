package sidecar

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Fixtures the plumbing's tests share with sidecar/decide's (copies:
// test helpers are not exported across packages).

const pre = schedconf.Prefix

// nestedConf is root.{prod.{etl,reports}, dev.{adhoc,ml}} in the given
// capacity values (percentages, weights or absolutes).
func nestedConf(prod, dev, etl, reports, adhoc, ml string) schedconf.Conf {
	return schedconf.Conf{
		pre + "root.queues": "prod,dev", pre + "root.prod.queues": "etl,reports", pre + "root.dev.queues": "adhoc,ml",
		pre + "root.prod.capacity": prod, pre + "root.dev.capacity": dev,
		pre + "root.prod.etl.capacity": etl, pre + "root.prod.reports.capacity": reports,
		pre + "root.dev.adhoc.capacity": adhoc, pre + "root.dev.ml.capacity": ml,
	}
}

func mustTree(t *testing.T, c schedconf.Conf) *schedconf.Tree {
	t.Helper()
	tree, err := schedconf.ParseTree(c)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// shieldFixture is the two-queue cluster the shield tests share: root.a
// and root.b at 50% of the default and of a gpu partition; snap(usedGPU)
// has a's one running app and a holding usedGPU MB of gpu.
func shieldFixture() (schedconf.Conf, func(usedGPU int64) cluster.Snapshot) {
	live := schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                                "a,b",
		"yarn.scheduler.capacity.root.accessible-node-labels":                "*",
		"yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity":   "100",
		"yarn.scheduler.capacity.root.a.capacity":                            "50",
		"yarn.scheduler.capacity.root.b.capacity":                            "50",
		"yarn.scheduler.capacity.root.a.accessible-node-labels":              "gpu",
		"yarn.scheduler.capacity.root.b.accessible-node-labels":              "gpu",
		"yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity": "50",
		"yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity": "50",
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

// mapModel is class x's model with maps of the given mean (seconds).
func mapModel(mean float64) func() map[string]deadline.PhaseModel {
	return func() map[string]deadline.PhaseModel {
		return map[string]deadline.PhaseModel{"x": {Map: deadline.LogNormal{Mu: math.Log(mean)}}}
	}
}
