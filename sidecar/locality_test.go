package sidecar

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// ClassLocality weighs jobs by input bytes: a job whose data is all on
// dn1 (rack r1) makes storage node-local and the GPU node (rack r2, no
// DataNode) off-switch; an unreadable job counts for nothing.
func TestClassLocality(t *testing.T) {
	nodes, fs := blockMapCluster()
	fs.AddFile("/d/part-0", 2<<20, 1<<20, [][]string{{"dn1"}, {"dn2"}})
	fs.AddDatanode(hdfsns.Datanode{Host: "dn3", Rack: "/r2"})
	fs.AddFile("/e/part-0", 2<<20, 1<<20, [][]string{{"dn3"}, {"dn3"}})
	_, client := miniNameNode(t, fs)
	bm := &BlockMaps{Reader: client}
	a1, a2, a3 := runningJob(1, "/d"), runningJob(2, "/e"), runningJob(3, "/missing")
	snap := cluster.Snapshot{Time: time.Unix(1, 0), Nodes: nodes, Apps: []cluster.App{a1, a2, a3}}
	in := bm.Refresh(context.Background(), snap)
	types := map[string]string{"dn1:8041": "storage", "dn2:8041": "storage", "gpu1:8041": "gpu"}
	loc := ClassLocality(snap, types, func(cluster.App) string { return "scan" }, in)
	// Half the bytes on r1's storage nodes, half on dn3 (r2, no NodeManager).
	if l := loc["scan"]["storage"]; math.Abs(l.NodeLocal-0.5) > 1e-9 || math.Abs(l.RackLocal) > 1e-9 {
		t.Errorf("storage %+v", l)
	}
	if l := loc["scan"]["gpu"]; l.NodeLocal != 0 || math.Abs(l.RackLocal-0.5) > 1e-9 {
		t.Errorf("gpu %+v (rack r2 holds dn3's half)", l)
	}
}

// RateLocality reads each queue's jobs apart: east's input on r1's
// DataNodes is rack-local to the compute node in r1; west's on r2 is
// off-switch from it; the class key holds both.
func TestRateLocalityPerQueue(t *testing.T) {
	fs := hdfsns.New()
	fs.AddDatanode(hdfsns.Datanode{Host: "dn1", Rack: "/r1"})
	fs.AddDatanode(hdfsns.Datanode{Host: "dn2", Rack: "/r2"})
	fs.AddFile("/east/part-0", 2<<20, 1<<20, [][]string{{"dn1"}, {"dn1"}})
	fs.AddFile("/west/part-0", 2<<20, 1<<20, [][]string{{"dn2"}, {"dn2"}})
	nodes := []cluster.Node{
		{ID: "dn1:8041", Host: "dn1", Rack: "/r1", State: "RUNNING"},
		{ID: "dn2:8041", Host: "dn2", Rack: "/r2", State: "RUNNING"},
		{ID: "c1:8041", Host: "c1", Rack: "/r1", State: "RUNNING", Partition: "fast"},
	}
	_, client := miniNameNode(t, fs)
	a1, a2 := runningJob(1, "/east"), runningJob(2, "/west")
	a1.Queue, a2.Queue = "root.east", "root.west"
	snap := cluster.Snapshot{Time: time.Unix(1, 0), Nodes: nodes, Apps: []cluster.App{a1, a2}}
	in := (&BlockMaps{Reader: client}).Refresh(context.Background(), snap)
	types := map[string]string{"dn1:8041": "storage", "dn2:8041": "storage", "c1:8041": "compute"}
	loc := RateLocality(snap, types, func(cluster.App) string { return "scan" }, in)
	cases := []struct {
		key, typ string
		want     affinity.Locality
	}{
		{decide.QueueClass("scan", "root.east"), "compute", affinity.Locality{RackLocal: 1}},
		{decide.QueueClass("scan", "root.west"), "compute", affinity.Locality{}},
		{"scan", "compute", affinity.Locality{RackLocal: 0.5}},
		{decide.QueueClass("scan", "root.east"), "storage", affinity.Locality{NodeLocal: 1}},
		{decide.QueueClass("scan", "root.west"), "storage", affinity.Locality{NodeLocal: 1}},
	}
	for _, c := range cases {
		got := loc[c.key][c.typ]
		if math.Abs(got.NodeLocal-c.want.NodeLocal) > 1e-9 || math.Abs(got.RackLocal-c.want.RackLocal) > 1e-9 {
			t.Errorf("%q on %s: %+v, want %+v", c.key, c.typ, got, c.want)
		}
	}
}
