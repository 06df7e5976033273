package cluster_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Two NodeManagers on one host (MiniYARNCluster, test clusters) and one on
// another; web addresses as the RM's nodes list gives them.
var sharedHost = []cluster.Node{
	{ID: "localhost:45451", Host: "localhost", HTTPAddress: "localhost:8042", Partition: "gpu", Total: cluster.Resource{MemoryMB: 4096, VCores: 4}},
	{ID: "localhost:45452", Host: "localhost", HTTPAddress: "localhost:8043", Total: cluster.Resource{MemoryMB: 4096, VCores: 4}},
	{ID: "cpunode:45452", Host: "cpunode", HTTPAddress: "cpunode:8043", Total: cluster.Resource{MemoryMB: 8192, VCores: 8}},
}

func TestNodeForHTTPAddress(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		want   string
		wantOK bool
	}{
		{"localhost:8042", "localhost:45451", true},
		{"localhost:8043", "localhost:45452", true},
		{"http://localhost:8043", "localhost:45452", true}, // the containers list's form
		{"http://localhost:8043/", "localhost:45452", true},
		{"CPUNODE:8043", "cpunode:45452", true},
		{"cpunode:9999", "cpunode:45452", true}, // port unknown: the host has one NM
		{"localhost:9999", "", false},           // port unknown and two NMs on the host: no guess
		{"nosuch:8042", "", false},
		{"", "", false},
	} {
		n, ok := cluster.NodeForHTTPAddress(sharedHost, tc.addr)
		if ok != tc.wantOK || ok && n.ID != tc.want {
			t.Errorf("%q: %s %v, want %s %v", tc.addr, n.ID, ok, tc.want, tc.wantOK)
		}
	}
}

// The index answers as the scan does: the first node with the address,
// else the host's one node; duplicated addresses, shared hosts, nodes
// without a web address or a host, and upper-case names included.
func TestNodeAddressesAnswerAsTheScan(t *testing.T) {
	nodes := append([]cluster.Node(nil), sharedHost...)
	nodes = append(nodes,
		cluster.Node{ID: "dup-a:1", Host: "dup", HTTPAddress: "Dup:8042"},
		cluster.Node{ID: "dup-b:2", Host: "dup", HTTPAddress: "dup:8042"}, // same address: the first wins
		cluster.Node{ID: "NoHost:45454", HTTPAddress: ""},                 // host from the id
		cluster.Node{ID: "blank:1", Host: "", HTTPAddress: "http://blank:8042/"},
	)
	for i := range 40 {
		nodes = append(nodes, cluster.Node{ID: fmt.Sprintf("n%02d:4545", i), Host: fmt.Sprintf("N%02d", i), HTTPAddress: fmt.Sprintf("n%02d:8042", i)})
	}
	x := cluster.IndexNodeAddresses(nodes)
	addrs := []string{"", ":8042", "dup:8042", "DUP:8042", "dup:9", "nohost:8042", "nohost:1", "blank:8042", "blank:9", "localhost:8042",
		"localhost:1", "http://cpunode:1/x", "nosuch:1"}
	for i := range 45 {
		addrs = append(addrs, fmt.Sprintf("n%02d:8042", i), fmt.Sprintf("http://N%02d:1", i))
	}
	for _, a := range addrs {
		want, wantOK := cluster.NodeForHTTPAddress(nodes, a)
		got, ok := x.Node(a)
		if ok != wantOK || ok && got.ID != want.ID {
			t.Errorf("%q: index %q %v, scan %q %v", a, got.ID, ok, want.ID, wantOK)
		}
	}
}

// Item 6 end to end with the calibrator: an attempt on the gpu-labelled
// NodeManager of a shared host is a sample of the gpu node type. By host
// name alone it would take whichever type the host's last node has.
func TestAttemptsOnSharedHostGetTheirNodesType(t *testing.T) {
	types := calibrate.Classifier{}.Types(sharedHost)
	at := func(id, addr string) cluster.Attempt {
		return cluster.Attempt{ID: id, Type: cluster.TaskMap, State: "SUCCEEDED", NodeHTTPAddress: addr,
			StartTime: time.Unix(0, 0), FinishTime: time.Unix(30, 0), Elapsed: 30 * time.Second}
	}
	app := cluster.App{ID: "application_1_0001", StartedTime: time.Unix(0, 0), FinishedTime: time.Unix(60, 0),
		Job: &cluster.Job{ID: "job_1_0001", Attempts: []cluster.Attempt{at("m0", "localhost:8042"), at("m1", "localhost:8043"), at("m2", "cpunode:8043")}}}
	got := map[string]string{}
	for _, s := range calibrate.SamplesFromApp(cluster.WithAttemptNodes(app, sharedHost), "c", types) {
		got[s.AttemptID] = s.NodeType
	}
	want := map[string]string{"m0": types["localhost:45451"], "m1": types["localhost:45452"], "m2": types["cpunode:45452"]}
	if types["localhost:45451"] == types["localhost:45452"] {
		t.Fatalf("test setup: the shared host's nodes must differ in type: %v", types)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("attempt %s: type %q, want %q", id, got[id], w)
		}
	}
	if app.Job.Attempts[0].NodeID != "" {
		t.Errorf("WithAttemptNodes changed its input")
	}
}

func TestResolveAppQueues(t *testing.T) {
	snap := cluster.Snapshot{
		Queues: []cluster.Queue{
			{Path: "root", Name: "root"},
			{Path: "root.crypto", Name: "crypto", Leaf: true},
			{Path: "root.dev", Name: "dev"},
			{Path: "root.dev.ml", Name: "ml", Leaf: true},
			{Path: "root.dev.etl", Name: "etl", Leaf: true},
			{Path: "root.prod", Name: "prod"},
			{Path: "root.prod.etl", Name: "etl", Leaf: true},
		},
		Apps: []cluster.App{
			{ID: "a1", Queue: "crypto"},      // 3.3.6: the leaf's short name
			{ID: "a2", Queue: "root.crypto"}, // 3.4: the path
			{ID: "a3", Queue: "ml"},          // nested leaf by short name
			{ID: "a4", Queue: "dev.ml"},      // a path without "root."
			{ID: "a5", Queue: "etl"},         // two leaves named etl
			{ID: "a6", Queue: "nosuch"},
		},
	}
	snap.ResolveAppQueues()
	want := []string{"root.crypto", "root.crypto", "root.dev.ml", "root.dev.ml", "etl", "nosuch"}
	for i, a := range snap.Apps {
		if a.Queue != want[i] {
			t.Errorf("app %s: queue %q, want %q", a.ID, a.Queue, want[i])
		}
	}
	if len(snap.Errors) != 2 || snap.Errors[0].What != "app a5 queue" || snap.Errors[1].What != "app a6 queue" {
		t.Fatalf("errors %+v", snap.Errors)
	}
	if e := snap.Errors[0].Err; e != `queue "etl" is the short name of several leaves [root.dev.etl root.prod.etl]; left unresolved` {
		t.Errorf("ambiguous: %s", e)
	}
}

// QueueIndex answers as Queue's scan: the first queue whose path or name
// matches, a name shared by two leaves included.
func TestQueueIndexAnswersAsQueue(t *testing.T) {
	snap := cluster.Snapshot{Queues: []cluster.Queue{
		{Path: "root", Name: "root"},
		{Path: "root.dev", Name: "dev"},
		{Path: "root.dev.etl", Name: "etl", Leaf: true},
		{Path: "root.prod", Name: "prod"},
		{Path: "root.prod.etl", Name: "etl", Leaf: true},
		{Path: "etl", Name: "odd"}, // a path equal to an earlier name: the earlier wins
	}}
	queueOf := snap.QueueIndex()
	for _, name := range []string{"root", "dev", "root.dev", "etl", "root.prod.etl", "odd", "prod", "nosuch", ""} {
		want, wantOK := snap.Queue(name)
		got, ok := queueOf(name)
		if ok != wantOK || got.Path != want.Path {
			t.Errorf("%q: index %q %v, scan %q %v", name, got.Path, ok, want.Path, wantOK)
		}
	}
}
