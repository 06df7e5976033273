package yarn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
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
