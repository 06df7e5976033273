package yarn

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Golden files are the JSON examples of Hadoop's own REST docs, verbatim:
// rm-nodes.json and rm-apps.json from ResourceManagerRest.md (Cluster Nodes
// API, Cluster Applications API), jhs-attempt.json and
// jhs-attempt-counters.json from HistoryServerRest.md (Task Attempt API,
// Task Attempt Counters API). The documented examples predate
// resourceInformations and totalResource: a node's total is then
// used + available.
//
// Sources of the files added for Hadoop 3.4 (tests below TestGoldenHistoryServerDocs):
//
//   - hadoop-yarn-project/hadoop-yarn/hadoop-yarn-site/src/site/markdown/ResourceManagerRest.md
//     (the 3.4-era text, whose capacityScheduler example was rewritten in
//     2023 from a live RM; read from a trunk copy, the fork
//     K0K0V0K/hadoop at b5a430f6): rm-nodes-3.4.json (Cluster Nodes API, with
//     resourceUtilization), rm-node-3.4.json (Cluster Node API, with
//     totalResource), rm-scheduler-3.4.json (Cluster Scheduler API,
//     capacityScheduler, with resourceInformations; every key and value of
//     the example, re-indented), rm-scheduler-fifo.json and
//     rm-scheduler-fair.json (Fifo and Fair Scheduler API), rm-apps-3.4.json
//     (Cluster Applications API). rm-scheduler-legacy.json is the
//     capacityScheduler example of the same file up to Hadoop 3.3 (no
//     queuePath, no capacities by partition).
//   - hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-core/src/site/markdown/MapredAppMasterRest.md
//     (it lives in -client-core, not -client-app):
//     am-jobs.json (Jobs API), am-tasks.json (Tasks API), am-task-attempts.json
//     (Task Attempts API), am-attempt-counters.json (Task Attempt Counters API).
//   - hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/site/markdown/HistoryServerRest.md:
//     jhs-jobs.json (Jobs API; the doc's missing comma after the second
//     submitTime added), jhs-job.json (Job API), jhs-tasks.json (Tasks API),
//     jhs-task-attempts.json (Task Attempts API), jhs-conf-verbatim.txt (Job
//     Conf API, verbatim: the doc's example is not valid JSON).
func golden(t *testing.T, name string) http.HandlerFunc {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}
}

func TestGoldenResourceManagerDocs(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ws/v1/cluster/nodes", golden(t, "rm-nodes.json"))
	mux.HandleFunc("/ws/v1/cluster/apps", golden(t, "rm-apps.json"))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := New(Config{RMAddresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Nodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 {
		t.Fatalf("%d nodes, want 2", len(nodes))
	}
	n := nodes[0]
	if n.ID != "h2:1235" || n.Host != "h2" || n.Rack != "/default-rack" || n.State != cluster.NodeState("NEW") || n.HTTPAddress != "h2:2" {
		t.Errorf("node decoded as %+v", n)
	}
	if n.Total.MemoryMB != 8192 || n.Total.VCores != 8 || n.Used.MemoryMB != 0 || n.NumContainers != 0 {
		t.Errorf("node resources %+v used %+v", n.Total, n.Used)
	}

	apps, err := c.Apps(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 2 {
		t.Fatalf("%d apps, want 2", len(apps))
	}
	a, b := apps[0], apps[1]
	if a.ID != "application_1326815542473_0001" || a.Name != "word count" || a.User != "user1" || a.Type != "MAPREDUCE" || a.State != cluster.AppState("FINISHED") {
		t.Errorf("app decoded as %+v", a)
	}
	if a.Queue != "root.default" && a.Queue != "default" {
		t.Errorf("queue %q", a.Queue)
	}
	if !a.StartedTime.Equal(time.UnixMilli(1326815573334)) || !a.FinishedTime.Equal(time.UnixMilli(1326815598530)) || a.Progress != 100 {
		t.Errorf("app times/progress %v %v %v", a.StartedTime, a.FinishedTime, a.Progress)
	}
	if len(b.Tags) != 1 || b.Tags[0] != "tag1" || b.RunningContainers != 1 || b.Type != "YARN" {
		t.Errorf("second app %+v", b)
	}
}

func TestGoldenHistoryServerDocs(t *testing.T) {
	const job = "job_1326381300833_2_2"
	const task = "task_1326381300833_2_2_m_0"
	root := "/ws/v1/history/mapreduce/jobs"
	mux := http.NewServeMux()
	// The list wrappers (jobs, tasks, taskAttempts) follow the docs' element
	// tables; the attempt and its counters are the docs' examples verbatim.
	mux.HandleFunc(root, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jobs":{"job":[{"submitTime":1326381446500,"state":"SUCCEEDED","user":"user1","reducesTotal":1,"mapsCompleted":1,"startTime":1326381446529,"id":"` + job + `","name":"Sleep job","reducesCompleted":1,"mapsTotal":1,"queue":"default","finishTime":1326381356010}]}}`))
	})
	mux.HandleFunc(root+"/"+job+"/conf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"conf":{"path":"hdfs://host.domain.com:9000/user/user1/.staging/` + job + `/job.xml","property":[{"name":"mapreduce.job.tags","value":"jobclass=sleep"}]}}`))
	})
	mux.HandleFunc(root+"/"+job+"/tasks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"tasks":{"task":[{"progress":100,"elapsedTime":2768,"state":"SUCCEEDED","startTime":1326381446541,"id":"` + task + `","type":"MAP","successfulAttempt":"attempt_1326381300833_2_2_m_0_0","finishTime":1326381449309}]}}`))
	})
	attempt, _ := os.ReadFile("testdata/jhs-attempt.json")
	mux.HandleFunc(root+"/"+job+"/tasks/"+task+"/attempts", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"taskAttempts":{"taskAttempt":[` + string(attempt) + `]}}`))
	})
	mux.HandleFunc(root+"/"+job+"/tasks/"+task+"/attempts/attempt_1326381300833_2_2_m_0_0/counters", golden(t, "jhs-attempt-counters.json"))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, _ := New(Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL})
	jobs, err := c.FinishedJobs(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].Job == nil || len(jobs[0].Job.Attempts) != 1 {
		t.Fatalf("jobs %+v", jobs)
	}
	j := jobs[0]
	if j.ID != "application_1326381300833_2_2" || j.Queue != "root.default" || len(j.Tags) != 1 || j.Tags[0] != "jobclass=sleep" {
		t.Errorf("job as app %+v", j)
	}
	at := j.Job.Attempts[0]
	if at.ID != "attempt_1326381300833_2_2_m_0_0" || at.Type != cluster.TaskMap || !at.Succeeded() || at.Rack != "/98.139.92.0" || at.NodeHTTPAddress != "host.domain.com:8042" {
		t.Errorf("attempt %+v", at)
	}
	if !at.StartTime.Equal(time.UnixMilli(1326381450680)) || !at.FinishTime.Equal(time.UnixMilli(1326381453318)) || at.Elapsed != 2638*time.Millisecond {
		t.Errorf("attempt times %v %v %v", at.StartTime, at.FinishTime, at.Elapsed)
	}
	if at.HDFSBytesRead != 0 {
		t.Errorf("HDFS_BYTES_READ %d, the example says 0", at.HDFSBytesRead)
	}
}

// goldenServer serves testdata files at exact paths and counts the
// requests each path gets.
type goldenServer struct {
	*httptest.Server
	mux   *http.ServeMux
	hits  map[string]*atomic.Int32
	query map[string]*atomic.Value // last raw query per path
}

func newGoldenServer(t *testing.T) *goldenServer {
	t.Helper()
	g := &goldenServer{mux: http.NewServeMux(), hits: map[string]*atomic.Int32{}, query: map[string]*atomic.Value{}}
	g.Server = httptest.NewServer(g.mux)
	t.Cleanup(g.Close)
	return g
}

// handle registers h at path (before any request is served).
func (g *goldenServer) handle(path string, h http.HandlerFunc) {
	n, q := &atomic.Int32{}, &atomic.Value{}
	g.hits[path], g.query[path] = n, q
	g.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		q.Store(r.URL.RawQuery)
		h(w, r)
	})
}

func (g *goldenServer) file(t *testing.T, path, name string) { g.handle(path, golden(t, name)) }

func (g *goldenServer) count(path string) int32 { return g.hits[path].Load() }

func (g *goldenServer) lastQuery(path string) string {
	s, _ := g.query[path].Load().(string)
	return s
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func goldenClient(t *testing.T, g *goldenServer) *Client {
	t.Helper()
	c, err := New(Config{RMAddresses: []string{g.URL}, JHSAddress: g.URL, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Cluster Nodes API (3.4): resourceUtilization is ignored, the total is
// used + available; the Cluster Node API's node object, which the nodes
// list is made of, carries totalResource, which wins.
func TestGoldenRM34Nodes(t *testing.T) {
	g := newGoldenServer(t)
	g.file(t, "/ws/v1/cluster/nodes", "rm-nodes-3.4.json")
	c := goldenClient(t, g)
	nodes, err := c.Nodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The documented list repeats one node id twice; the client passes
	// both through.
	if len(nodes) != 2 {
		t.Fatalf("%d nodes, want 2", len(nodes))
	}
	want := cluster.Node{ID: "host.domain.com:54158", Host: "host.domain.com", Rack: "/default-rack", State: cluster.NodeRunning,
		HTTPAddress: "host.domain.com:8042", Partition: "", Total: cluster.Resource{MemoryMB: 8192, VCores: 8}}
	for i, n := range nodes {
		if !reflect.DeepEqual(n, want) {
			t.Errorf("node %d decoded as %+v, want %+v", i, n, want)
		}
		if !n.Usable() {
			t.Errorf("node %d (RUNNING) not usable", i)
		}
	}

	var single struct {
		Node json.RawMessage `json:"node"`
	}
	if err := json.Unmarshal(readGolden(t, "rm-node-3.4.json"), &single); err != nil {
		t.Fatal(err)
	}
	wrapped := []byte(`{"nodes":{"node":[` + string(single.Node) + `]}}`)
	g2 := newGoldenServer(t)
	g2.handle("/ws/v1/cluster/nodes", reply(200, "application/json", string(wrapped)))
	nodes, err = goldenClient(t, g2).Nodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The example is inconsistent (8192 MB available of 2048 total); the
	// client trusts totalResource.
	want.Total = cluster.Resource{MemoryMB: 2048, VCores: 5}
	if len(nodes) != 1 || !reflect.DeepEqual(nodes[0], want) {
		t.Fatalf("node with totalResource decoded as %+v, want %+v", nodes, want)
	}
}

// Cluster Scheduler API, capacityScheduler (3.4): three leaves under root,
// percentage mode, capacities and usage by partition, resourceInformations.
func TestGoldenRM34Scheduler(t *testing.T) {
	g := newGoldenServer(t)
	g.file(t, "/ws/v1/cluster/scheduler", "rm-scheduler-3.4.json")
	qs, err := goldenClient(t, g).Queues(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	byPath := map[string]cluster.Queue{}
	for _, q := range qs {
		paths = append(paths, q.Path)
		byPath[q.Path] = q
	}
	if want := []string{"root", "root.a", "root.b", "root.c"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("queues %v, want %v", paths, want)
	}
	root := byPath["root"]
	if root.Leaf || root.Name != "root" || !reflect.DeepEqual(root.Children, []string{"a", "b", "c"}) || root.Mode != "percentage" {
		t.Errorf("root %+v", root)
	}
	if rc := root.ByPartition[""]; rc.Capacity != 100 || rc.MaxCapacity != 100 || rc.AbsoluteCapacity != 100 || rc.AbsoluteMaxCapacity != 100 || rc.Weight != -1 {
		t.Errorf("root capacities %+v", rc)
	}
	leaves := []struct {
		path, name                  string
		cap, maxCap, absCap, absMax float64
	}{
		{"root.a", "a", 12.5, 50, 12.5, 50},
		{"root.b", "b", 50, 100, 50, 100},
		{"root.c", "c", 37.5, 100, 37.5, 100},
	}
	sum := 0.0
	for _, l := range leaves {
		q := byPath[l.path]
		if !q.Leaf || q.Name != l.name || q.State != "RUNNING" || q.Mode != "percentage" || len(q.Children) != 0 ||
			!reflect.DeepEqual(q.AccessibleLabels, []string{"*"}) || q.UserLimitFactor != 1 || q.NumApplications != 0 || q.NumContainers != 0 {
			t.Errorf("%s decoded as %+v", l.path, q)
		}
		if len(q.ByPartition) != 1 {
			t.Errorf("%s partitions %v, want only the default one", l.path, q.ByPartition)
		}
		want := cluster.QueueCapacity{Capacity: l.cap, MaxCapacity: l.maxCap, AbsoluteCapacity: l.absCap, AbsoluteMaxCapacity: l.absMax, Weight: -1}
		if got := q.ByPartition[""]; got != want {
			t.Errorf("%s default partition %+v, want %+v", l.path, got, want)
		}
		if !q.CanUse("") {
			t.Errorf("%s cannot use the default partition", l.path)
		}
		sum += q.ByPartition[""].AbsoluteCapacity
	}
	if sum != 100 {
		t.Errorf("leaf absolute capacities sum to %v", sum)
	}
}

// The capacityScheduler example up to Hadoop 3.3: no queuePath (paths are
// built from the names), nested parents. Its capacities are top-level
// fields only, which the client does not read (it reads
// capacities.queueCapacitiesByPartition, which every 3.x RM sends).
func TestGoldenLegacySchedulerTree(t *testing.T) {
	g := newGoldenServer(t)
	g.file(t, "/ws/v1/cluster/scheduler", "rm-scheduler-legacy.json")
	qs, err := goldenClient(t, g).Queues(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Path     string
		Leaf     bool
		Children []string
		Apps     int
		ULF      float64
		State    string
	}
	var got []row
	for _, q := range qs {
		got = append(got, row{q.Path, q.Leaf, q.Children, q.NumApplications, q.UserLimitFactor, q.State})
	}
	want := []row{
		{"root", false, []string{"a", "b"}, 0, 0, ""},
		{"root.a", false, []string{"a1", "a2"}, 0, 0, "RUNNING"},
		{"root.a.a1", false, []string{"a1a", "a1b"}, 0, 0, "RUNNING"},
		{"root.a.a1.a1a", true, nil, 0, 1, "RUNNING"},
		{"root.a.a1.a1b", true, nil, 0, 1, "RUNNING"},
		{"root.a.a2", true, nil, 0, 100, "RUNNING"},
		{"root.b", false, []string{"b1", "b2", "b3"}, 2, 0, "RUNNING"},
		{"root.b.b1", true, nil, 2, 100, "RUNNING"},
		{"root.b.b2", true, nil, 0, 100, "RUNNING"},
		{"root.b.b3", true, nil, 0, 100, "RUNNING"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("queue tree\n got %+v\nwant %+v", got, want)
	}
}

// The Fifo and Fair Scheduler examples are refused by name.
func TestGoldenOtherSchedulers(t *testing.T) {
	for file, typ := range map[string]string{"rm-scheduler-fifo.json": "fifoScheduler", "rm-scheduler-fair.json": "fairScheduler"} {
		g := newGoldenServer(t)
		g.file(t, "/ws/v1/cluster/scheduler", file)
		qs, err := goldenClient(t, g).Queues(context.Background())
		if err == nil || len(qs) != 0 {
			t.Fatalf("%s: queues %v, no error", file, qs)
		}
		for _, w := range []string{"/ws/v1/cluster/scheduler", strconv.Quote(typ), "Capacity Scheduler only"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %s", file, err, w)
			}
		}
	}
}

// Cluster Applications API (3.4): priority is "priority" (not the older
// docs' "applicationPriority"), unmanagedApplication a boolean,
// resourceRequests present (the client asks to deselect them).
func TestGoldenRM34Apps(t *testing.T) {
	g := newGoldenServer(t)
	g.file(t, "/ws/v1/cluster/apps", "rm-apps-3.4.json")
	apps, err := goldenClient(t, g).Apps(context.Background(), "RUNNING", "ACCEPTED")
	if err != nil {
		t.Fatal(err)
	}
	if q := g.lastQuery("/ws/v1/cluster/apps"); !strings.Contains(q, "deSelects=resourceRequests") || !strings.Contains(q, "states=RUNNING%2CACCEPTED") {
		t.Errorf("apps query %q", q)
	}
	// Queue is what the RM reports; Snapshot.ResolveAppQueues makes it a path.
	want := []cluster.App{
		{ID: "application_1476912658570_0002", Name: "word count", User: "user2", Queue: "default", State: cluster.AppFinished,
			Type: "MAPREDUCE", Priority: -1, Progress: 100, StartedTime: time.UnixMilli(1476913457320).UTC(), FinishedTime: time.UnixMilli(1476913761898).UTC(),
			TrackingURL: "http://host.domain.com:8088/cluster/app/application_1476912658570_0002"},
		{ID: "application_1476912658570_0001", Name: "Sleep job", User: "user1", Queue: "default", State: cluster.AppFinished,
			Type: "YARN", Priority: -1, Progress: 100, StartedTime: time.UnixMilli(1476913464750).UTC(), FinishedTime: time.UnixMilli(1476913863175).UTC(),
			TrackingURL: "http://host.domain.com:8088/cluster/app/application_1476912658570_0001"},
	}
	if !reflect.DeepEqual(apps, want) {
		t.Fatalf("apps\n got %+v\nwant %+v", apps, want)
	}
}

// MapredAppMasterRest.md: the running job from the AM behind the RM proxy
// (Jobs API, Tasks API), and the Task Attempt Counters API read through the
// same base.
func TestGoldenMapredAppMaster(t *testing.T) {
	const appID = "application_1326232085508_0004"
	const jobID = "job_1326232085508_4_4"
	const root = "/proxy/" + appID + "/ws/v1/mapreduce/jobs"
	const counters = root + "/" + jobID + "/tasks/task_1326232085508_4_4_r_0/attempts/attempt_1326232085508_4_4_r_0_0/counters"
	g := newGoldenServer(t)
	g.file(t, root, "am-jobs.json")
	g.file(t, root+"/"+jobID+"/tasks", "am-tasks.json")
	g.file(t, counters, "am-attempt-counters.json")
	c := goldenClient(t, g)
	app := cluster.App{ID: appID, Type: "MAPREDUCE", State: cluster.AppRunning, TrackingURL: g.URL + "/proxy/" + appID + "/"}
	j, err := c.RunningJob(context.Background(), app)
	if err != nil {
		t.Fatal(err)
	}
	want := cluster.Job{ID: jobID, Name: "Sleep job", State: "RUNNING", StartTime: time.UnixMilli(1326238769379).UTC(),
		MapsTotal: 1, MapsCompleted: 1, ReducesTotal: 1, ReducesCompleted: 0, ReducesRunning: 1,
		RunningReduces: []float64{1}, RunningReducesElapsed: []float64{0}} // the running reduce: progress 100, elapsedTime 0
	// Its one map is done and the reduce runs: the reduce tasks are read
	// instead of the map tasks (reducePhaseRead).
	if !reflect.DeepEqual(*j, want) {
		t.Fatalf("job\n got %+v\nwant %+v", *j, want)
	}
	if q := g.lastQuery(root + "/" + jobID + "/tasks"); q != "type=r" {
		t.Errorf("tasks query %q, want type=r", q)
	}

	b, err := c.amBase(app)
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.attemptBytesRead(context.Background(), b, jobID, "task_1326232085508_4_4_r_0", "attempt_1326232085508_4_4_r_0_0")
	if err != nil || n != 0 || g.count(counters) != 1 {
		t.Fatalf("attempt counters: HDFS_BYTES_READ %d (the example says 0), %v, %d requests", n, err, g.count(counters))
	}
}

// filterFinishedSince answers the Jobs API like JobHistory: the documented
// job list, less the jobs that finished before finishedTimeBegin.
func filterFinishedSince(t *testing.T, list []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Jobs struct {
				Raw []json.RawMessage `json:"job"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(list, &body); err != nil {
			t.Error(err)
		}
		begin, _ := strconv.ParseInt(r.URL.Query().Get("finishedTimeBegin"), 10, 64)
		var kept []string
		for _, raw := range body.Jobs.Raw {
			var j struct {
				FinishTime int64 `json:"finishTime"`
			}
			json.Unmarshal(raw, &j)
			if j.FinishTime >= begin {
				kept = append(kept, string(raw))
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jobs":{"job":[` + strings.Join(kept, ",") + `]}}`))
	}
}

// HistoryServerRest.md: finished jobs since a time (Jobs API), their tasks
// and attempts (Tasks, Task Attempts API), the map attempts' counters;
// the documented job conf, which is not valid JSON, is skipped. The Jobs
// API documents no reduce attempt: the reduce task's attempts are the
// MapredAppMasterRest.md example (the same ReduceTaskAttemptInfo).
func TestGoldenHistoryServer34(t *testing.T) {
	const jobID = "job_1326381300833_2_2"
	root := "/ws/v1/history/mapreduce/jobs"
	jr := root + "/" + jobID
	mapCounters := jr + "/tasks/task_1326381300833_2_2_m_0/attempts/attempt_1326381300833_2_2_m_0_0/counters"
	g := newGoldenServer(t)
	g.handle(root, filterFinishedSince(t, readGolden(t, "jhs-jobs.json")))
	g.file(t, jr+"/conf", "jhs-conf-verbatim.txt")
	g.file(t, jr+"/tasks", "jhs-tasks.json")
	g.file(t, jr+"/tasks/task_1326381300833_2_2_m_0/attempts", "jhs-task-attempts.json")
	g.file(t, jr+"/tasks/task_1326381300833_2_2_r_0/attempts", "am-task-attempts.json")
	g.file(t, mapCounters, "jhs-attempt-counters.json")
	c := goldenClient(t, g)

	// The first documented job finished at 1326381356010: asking for jobs
	// finished after it leaves the second.
	apps, err := c.FinishedJobs(context.Background(), time.UnixMilli(1326381356010))
	if err != nil {
		t.Fatal(err)
	}
	if q := g.lastQuery(root); q != "finishedTimeBegin=1326381356011" {
		t.Errorf("jobs query %q", q)
	}
	if len(apps) != 1 || apps[0].Job == nil {
		t.Fatalf("finished jobs %+v", apps)
	}
	a := apps[0]
	if a.ID != "application_1326381300833_2_2" || a.Name != "Sleep job" || a.User != "user1" || a.Queue != "root.default" ||
		a.State != cluster.AppFinished || a.Type != "MAPREDUCE" || len(a.Tags) != 0 ||
		!a.StartedTime.Equal(time.UnixMilli(1326381446529)) || !a.FinishedTime.Equal(time.UnixMilli(1326381582106)) {
		t.Errorf("job as app %+v", a)
	}
	if g.count(jr+"/conf") != 1 {
		t.Errorf("conf requested %d times: the undecodable documented conf must be skipped after one try", g.count(jr+"/conf"))
	}
	j := a.Job
	if j.ID != jobID || j.State != "SUCCEEDED" || j.MapsTotal != 1 || j.MapsCompleted != 1 || j.ReducesTotal != 1 || j.ReducesCompleted != 1 {
		t.Errorf("job %+v", j)
	}
	wantAttempts := []cluster.Attempt{
		{ID: "attempt_1326381300833_2_2_m_0_0", TaskID: "task_1326381300833_2_2_m_0", JobID: jobID, Type: cluster.TaskMap, State: "SUCCEEDED",
			NodeHTTPAddress: "host.domain.com:8042", Rack: "/98.139.92.0",
			StartTime: time.UnixMilli(1326381450680).UTC(), FinishTime: time.UnixMilli(1326381453318).UTC(), Elapsed: 2638 * time.Millisecond,
			CPUTime: 860 * time.Millisecond}, // the documented attempt counters' CPU_MILLISECONDS
		{ID: "attempt_1326232085508_4_4_r_0_0", TaskID: "task_1326381300833_2_2_r_0", JobID: jobID, Type: cluster.TaskReduce, State: "RUNNING",
			NodeHTTPAddress: "host.domain.com:8042", Rack: "/98.139.92.0",
			StartTime: time.UnixMilli(1326238777460).UTC(), ShuffleElapsed: 2592 * time.Millisecond, MergeElapsed: 47 * time.Millisecond},
	}
	if !reflect.DeepEqual(j.Attempts, wantAttempts) {
		t.Fatalf("attempts\n got %+v\nwant %+v", j.Attempts, wantAttempts)
	}
	// Counters are read for the successful map attempt only.
	if g.count(mapCounters) != 1 {
		t.Errorf("map attempt counters requested %d times, want 1", g.count(mapCounters))
	}
}

// HistoryServerRest.md Job API: the job of an app whose AM is gone (the RM
// proxy answers 404). The docs write job ids as job_<cluster>_<n>_<n>; the
// client derives the job id from the app id, so the app is named alike.
func TestGoldenHistoryJobFallback(t *testing.T) {
	const appID = "application_1326381300833_2_2"
	g := newGoldenServer(t)
	g.handle("/proxy/"+appID+"/ws/v1/mapreduce/jobs", reply(404, "text/plain", "Application "+appID+" could not be found"))
	g.file(t, "/ws/v1/history/mapreduce/jobs/job_1326381300833_2_2", "jhs-job.json")
	j, err := goldenClient(t, g).RunningJob(context.Background(), cluster.App{ID: appID, TrackingURL: g.URL + "/proxy/" + appID + "/"})
	if err != nil {
		t.Fatal(err)
	}
	want := cluster.Job{ID: "job_1326381300833_2_2", Name: "Sleep job", State: "SUCCEEDED", StartTime: time.UnixMilli(1326381446529).UTC(),
		FinishTime: time.UnixMilli(1326381582106).UTC(), MapsTotal: 1, MapsCompleted: 1, ReducesTotal: 1, ReducesCompleted: 1}
	if !reflect.DeepEqual(*j, want) {
		t.Fatalf("job\n got %+v\nwant %+v", *j, want)
	}
}

// The golden files are what the docs print: each is valid JSON except the
// documented job conf, which is kept verbatim on purpose.
func TestGoldenFilesParse(t *testing.T) {
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		n++
		if b := readGolden(t, e.Name()); !json.Valid(bytes.TrimSpace(b)) {
			t.Errorf("testdata/%s is not valid JSON", e.Name())
		}
	}
	if n < 18 {
		t.Errorf("%d golden JSON files, want at least 18", n)
	}
	if json.Valid(readGolden(t, "jhs-conf-verbatim.txt")) {
		t.Error("jhs-conf-verbatim.txt became valid JSON; the test of the undecodable documented conf needs it verbatim")
	}
}
