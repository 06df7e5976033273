package sidecar

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// miniNameNode serves fs and returns a client of it.
func miniNameNode(t *testing.T, fs *hdfsns.FS) (*namenode.Server, *hdfs.Client) {
	t.Helper()
	nn, err := namenode.Start(fs, namenode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nn.Close() })
	c, err := hdfs.NewClient(hdfs.Options{Addresses: []string{nn.Addr()}, User: "yarn-sidecar"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return nn, c
}

func nnCalls(nn *namenode.Server) int {
	return nn.Calls("getFileInfo") + nn.Calls("getListing") + nn.Calls("getBlockLocations")
}

// Two storage hosts (rack r1, default partition) and a GPU host without a
// DataNode (rack r2, partition gpu).
func blockMapCluster() ([]cluster.Node, *hdfsns.FS) {
	fs := hdfsns.New()
	fs.AddDatanode(hdfsns.Datanode{Host: "dn1", Rack: "/r1"})
	fs.AddDatanode(hdfsns.Datanode{Host: "dn2", Rack: "/r1"})
	nodes := []cluster.Node{
		{ID: "dn1:8041", Host: "dn1", Rack: "/r1", State: "RUNNING"},
		{ID: "dn2:8041", Host: "dn2", Rack: "/r1", State: "RUNNING"},
		{ID: "gpu1:8041", Host: "gpu1", Rack: "/r2", State: "RUNNING", Partition: "gpu"},
	}
	return nodes, fs
}

func runningJob(i int, paths ...string) cluster.App {
	return cluster.App{ID: fmt.Sprintf("application_1_%04d", i), Queue: "root.a", State: cluster.AppRunning, Type: "MAPREDUCE",
		StartedTime: time.Unix(int64(i), 0), Job: &cluster.Job{ID: fmt.Sprintf("job_1_%04d", i), InputPaths: paths}}
}

type fixedObserver struct {
	snap cluster.Snapshot
	conf schedconf.Conf
}

func (o fixedObserver) Observe(context.Context, time.Time) (cluster.Snapshot, error) {
	return o.snap, nil
}
func (o fixedObserver) SchedulerConf(context.Context) (schedconf.Conf, error) { return o.conf, nil }

type noDecision struct{}

func (noDecision) Decide(cluster.Snapshot, schedconf.Conf) (Decision, error) { return Decision{}, nil }

// One loop cycle reads a running job's block map from the NameNode: its
// input is local to the default partition and rack r1, none of it to the
// GPU partition; an unreadable input is reported with its error, and the
// status carries both.
func TestBlockMapsInLoopCycle(t *testing.T) {
	nodes, fs := blockMapCluster()
	fs.AddFile("/data/in/part-0", 3<<20, 1<<20, [][]string{{"dn1"}, {"dn1", "dn2"}, {"dn2"}})
	fs.AddFile("/data/in/_SUCCESS", 0, 1<<20, nil)
	_, client := miniNameNode(t, fs)
	snap := cluster.Snapshot{Time: time.Unix(1000, 0), Nodes: nodes,
		Apps: []cluster.App{runningJob(1, "hdfs://nn:8020/data/in"), runningJob(2, "/data/missing")}}
	conf := schedconf.Conf{"yarn.scheduler.capacity.root.queues": "a", "yarn.scheduler.capacity.root.a.capacity": "100"}
	rm := &fakeRM{conf: conf.Clone()}
	board := &StatusBoard{}
	loop := &Loop{Observer: fixedObserver{snap, conf}, Decider: noDecision{}, Applier: &act.Applier{API: rm}, Mode: act.ModeDryRun,
		BlockMaps: &BlockMaps{Reader: client}, OnCycle: func(r CycleReport) { RecordCycle(board, r) }}
	rep, err := loop.Once(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	in := rep.Inputs
	if in == nil || in.Read != 2 || in.Calls == 0 {
		t.Fatalf("inputs report %+v", in)
	}
	j := in.Jobs["application_1_0001"]
	if j.Err != "" || j.Bytes != 3<<20 {
		t.Fatalf("job 1: %+v", j)
	}
	if j.ByPartition[""] != 1 || j.ByPartition["gpu"] != 0 || j.ByRack["/r1"] != 1 {
		t.Errorf("job 1 shares: partitions %v racks %v", j.ByPartition, j.ByRack)
	}
	bad := in.Failed()
	if len(bad) != 1 || bad[0].AppID != "application_1_0002" || !strings.Contains(bad[0].Err, "/data/missing") || bad[0].ByPartition != nil {
		t.Errorf("unreadable input: %+v", bad)
	}
	if st := board.Get(); st.Inputs == nil || len(st.Inputs.Failed()) != 1 {
		t.Errorf("status lacks the inputs report: %+v", st.Inputs)
	}
}

// The budget caps NameNode calls per cycle; later cycles read the rest,
// and a job read once is never read again while it runs.
func TestBlockMapsBudgetAndCache(t *testing.T) {
	nodes, fs := blockMapCluster()
	var apps []cluster.App
	for i := 1; i <= 10; i++ {
		p := fmt.Sprintf("/data/j%d", i)
		fs.AddFile(p+"/part-0", 1<<20, 1<<20, [][]string{{"dn1"}})
		apps = append(apps, runningJob(i, p))
	}
	nn, client := miniNameNode(t, fs)
	bm := &BlockMaps{Reader: client, MaxCallsPerCycle: 4}
	snap := cluster.Snapshot{Time: time.Unix(1000, 0), Nodes: nodes, Apps: apps}
	seen := map[string]bool{}
	for cycle := 1; cycle <= 6; cycle++ {
		before := nnCalls(nn)
		rep := bm.Refresh(context.Background(), snap)
		made := nnCalls(nn) - before
		// A job costs 2 calls (getFileInfo, getListing): 4 allows two.
		if made > 4 || rep.Calls != made {
			t.Fatalf("cycle %d: %d NameNode calls (report says %d), budget 4", cycle, made, rep.Calls)
		}
		for id := range rep.Jobs {
			seen[id] = true
		}
		if cycle <= 5 && (rep.Read != 2 || rep.Deferred != 10-2*cycle) {
			t.Errorf("cycle %d: read %d deferred %d", cycle, rep.Read, rep.Deferred)
		}
		if cycle == 6 && (made != 0 || len(rep.Jobs) != 10) {
			t.Errorf("cycle 6: %d calls for cached jobs, %d jobs reported", made, len(rep.Jobs))
		}
	}
	if len(seen) != 10 {
		t.Errorf("%d of 10 jobs read", len(seen))
	}
	// The oldest jobs are read first.
	if _, ok := bm.Input("job_1_0001"); !ok {
		t.Error("job 1 not cached")
	}
}

// An attempt's locality comes from the job's block map and its host and
// rack; an unknown job gives none.
func TestAttemptLocality(t *testing.T) {
	nodes, fs := blockMapCluster()
	fs.AddFile("/d/part-0", 2<<20, 1<<20, [][]string{{"dn1"}, {"dn1"}})
	_, client := miniNameNode(t, fs)
	bm := &BlockMaps{Reader: client}
	bm.Refresh(context.Background(), cluster.Snapshot{Time: time.Unix(1, 0), Nodes: nodes, Apps: []cluster.App{runningJob(1, "/d")}})
	cases := []struct {
		job, addr, rack, want string
	}{
		{"job_1_0001", "dn1:8042", "/r1", LocalityNode},
		{"job_1_0001", "dn2:8042", "/r1", LocalityRack},
		{"job_1_0001", "gpu1:8042", "/r2", LocalityOff},
		{"job_1_0099", "dn1:8042", "/r1", ""},
	}
	for _, c := range cases {
		if got := bm.AttemptLocality(c.job, cluster.Attempt{NodeHTTPAddress: c.addr, Rack: c.rack}); got != c.want {
			t.Errorf("%s on %s: %q, want %q", c.job, c.addr, got, c.want)
		}
	}

}
