package sidecar

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestBusyQueueFloor(t *testing.T) {
	q := func(path string, capacity float64, pendingMB int64) cluster.Queue {
		return cluster.Queue{Path: path, Name: path[5:], Leaf: true, ByPartition: map[string]cluster.QueueCapacity{
			"": {Capacity: capacity, Pending: cluster.Resource{MemoryMB: pendingMB}}, "gpu": {Capacity: 50}}}
	}
	snap := func(qs ...cluster.Queue) cluster.Snapshot {
		return cluster.Snapshot{Queues: append([]cluster.Queue{{Path: "root", Name: "root", Children: []string{"adhoc", "etl"}}}, qs...)}
	}
	b := &BusyQueueFloor{}
	// First sight: the admin's 40/60; adhoc has work waiting.
	r := b.Rule(snap(q("root.adhoc", 40, 2048), q("root.etl", 60, 0)))
	for _, c := range []struct {
		queue, part string
		want        float64
	}{{"root.adhoc", "", 40}, {"root.etl", "", 0}, {"root.adhoc", "gpu", 0}} {
		if got := r(c.queue, c.part); got != c.want {
			t.Errorf("first cycle %s/%q: floor %v, want %v", c.queue, c.part, got, c.want)
		}
	}
	// Later the sidecar lowered adhoc to 25: the floor stays the admin's 40
	// while it is busy, and drops to 0 once nothing is pending.
	if got := b.Rule(snap(q("root.adhoc", 25, 2048), q("root.etl", 75, 0)))("root.adhoc", ""); got != 40 {
		t.Errorf("busy adhoc floor %v, want the admin's 40", got)
	}
	if got := b.Rule(snap(q("root.adhoc", 25, 0), q("root.etl", 75, 4096)))("root.adhoc", ""); got != 0 {
		t.Errorf("idle adhoc floor %v, want 0", got)
	}
	if got := MaxFloor(func(string, string) float64 { return 3 }, nil, func(string, string) float64 { return 7 })("x", ""); got != 7 {
		t.Errorf("MaxFloor %v, want 7", got)
	}
}
