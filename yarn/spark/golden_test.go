package spark

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// The recorded answers in testdata/history-server/ are Spark's own test
// expectations (HistoryServerSuite), copied verbatim from
// shared/spark-rest/; INDEX.md there names the endpoint each answers. The
// golden server serves each at that endpoint, on the History Server
// (/api/v1/...) and behind the RM web proxy (/proxy/<app>/api/v1/...);
// any other path or query is a 404, as Spark's is.

type goldenRoute struct {
	path  string // under /api/v1
	query url.Values
	file  string
}

var goldenRoutes = []goldenRoute{
	{"/applications", nil, "application_list.json"},
	{"/applications/local-1422981780767", nil, "one_application.json"},
	{"/applications/local-1426533911241", nil, "one_application_multi_attempt.json"},
	{"/applications/local-1422981780767/jobs", nil, "job_list.json"},
	{"/applications/app-20200706201101-0003/stages", nil, "stage_list.json"},
	{"/applications/local-1422981780767/stages", url.Values{"status": {"failed"}}, "stage_list_failed.json"},
	{"/applications/local-1422981780767/stages/1/0", nil, "one_stage_attempt.json"},
	{"/applications/application_1628109047826_1317105/stages/0/0", nil, "stage_attempt_with_speculation_yarn.json"},
	{"/applications/local-1430917381534/stages/0/0/taskList", nil, "stage_task_list.json"},
	{"/applications/local-1430917381534/stages/0/0/taskList", url.Values{"offset": {"10"}, "length": {"50"}}, "stage_task_list_offset10_length50.json"},
	{"/applications/local-1430917381534/stages/0/0/taskList", url.Values{"sortBy": {"DECREASING_RUNTIME"}}, "stage_task_list_sortBy_DECREASING_RUNTIME.json"},
	{"/applications/local-1430917381534/stages/0/0/taskSummary", url.Values{"quantiles": {"0.01,0.5,0.99"}}, "stage_task_summary_custom_quantiles.json"},
	{"/applications/local-1430917381534/stages/1/0/taskSummary", nil, "stage_task_summary_shuffle_read.json"},
	{"/applications/local-1422981780767/executors", nil, "executor_list.json"},
	{"/applications/application_1553914137147_0018/executors", nil, "executor_list_with_metrics.json"},
	{"/applications/application_1555004656427_0144/executors", nil, "executor_list_resources_gpu.json"},
	{"/applications/app-20161116163331-0000/executors", nil, "executor_list_excludeOnFailure.json"},
	{"/applications/application_1555004656427_0144/allmiscellaneousprocess", nil, "miscellaneous_process_yarn_am.json"},
}

// goldenServer serves the recordings; served counts the files answered.
type goldenServer struct {
	*httptest.Server
	served map[string]int
}

func newGoldenServer(t *testing.T) *goldenServer {
	t.Helper()
	g := &goldenServer{served: map[string]int{}}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if rest, ok := strings.CutPrefix(p, "/proxy/"); ok {
			// The proxy passes /proxy/<app>/<path> to the app's driver.
			app, tail, _ := strings.Cut(rest, "/")
			p = "/" + tail
			if !strings.HasPrefix(p, "/api/v1/applications/"+app) {
				http.Error(w, "proxied path names another app", http.StatusNotFound)
				return
			}
		}
		p, ok := strings.CutPrefix(p, "/api/v1")
		if !ok {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		for _, rt := range goldenRoutes {
			if rt.path == p && (len(q) == 0 && len(rt.query) == 0 || reflect.DeepEqual(q, rt.query)) {
				data, err := os.ReadFile(filepath.Join("testdata", "history-server", rt.file))
				if err != nil {
					t.Errorf("read %s: %v", rt.file, err)
					http.Error(w, err.Error(), 500)
					return
				}
				g.served[rt.file]++
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(data)
				return
			}
		}
		http.Error(w, "unknown app or resource: "+r.URL.String(), http.StatusNotFound)
	}))
	t.Cleanup(g.Close)
	return g
}

func goldenClient(t *testing.T, g *goldenServer) *Client {
	t.Helper()
	c, err := New(Config{ProxyAddress: func() string { return g.URL }, HistoryAddress: strings.TrimPrefix(g.URL, "http://"), Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func gmt(s string) time.Time {
	v, err := time.Parse(timeLayout, s)
	if err != nil {
		panic(err)
	}
	return v
}

func collect[T any](out *[]T) func(*T) error {
	return func(v *T) error { *out = append(*out, *v); return nil }
}

// TestGoldenEveryFile reads every recorded file through the client at its
// endpoint and checks values taken from the files (by hand and jq), then
// that no file was left unread.
func TestGoldenEveryFile(t *testing.T) {
	g := newGoldenServer(t)
	c := goldenClient(t, g)
	ctx := context.Background()
	hist := func(app, attempt string) Source {
		s, err := c.History(app, attempt)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	t.Run("application_list", func(t *testing.T) {
		var apps []Application
		if err := c.Applications(ctx, nil, collect(&apps)); err != nil {
			t.Fatal(err)
		}
		if len(apps) != 16 || apps[15].ID != "local-1422981759269" {
			t.Fatalf("got %d apps, last %q; want 16, local-1422981759269", len(apps), apps[len(apps)-1].ID)
		}
		yarnApp := apps[1]
		a := yarnApp.Attempts[0]
		if yarnApp.ID != "application_1628109047826_1317105" || a.AttemptID != "" || a.Duration != 274875 || a.SparkUser != "john" ||
			!a.Completed || a.AppSparkVersion != "3.1.1.119" || !a.StartTime.Equal(gmt("2021-08-10T23:24:55.333GMT")) ||
			a.StartTimeEpoch != 1628637895333 || !a.LastUpdated.IsZero() {
			t.Errorf("apps[1] = %+v", yarnApp)
		}
		var multi int
		for _, x := range apps {
			if len(x.Attempts) == 2 {
				multi++
			}
		}
		if multi != 2 {
			t.Errorf("apps with 2 attempts: %d, want 2", multi)
		}
	})
	t.Run("one_application", func(t *testing.T) {
		a, err := c.Application(ctx, hist("local-1422981780767", ""))
		if err != nil {
			t.Fatal(err)
		}
		if a.Name != "Spark shell" || len(a.Attempts) != 1 || a.Attempts[0].Duration != 9011 ||
			!a.Attempts[0].StartTime.Equal(gmt("2015-02-03T16:42:59.720GMT")) {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("one_application_multi_attempt", func(t *testing.T) {
		// An attempt named in the Source is dropped: /applications/<id>
		// lists them all.
		a, err := c.Application(ctx, hist("local-1426533911241", "2"))
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Attempts) != 2 || a.Attempts[0].AttemptID != "2" || a.Attempts[1].AttemptID != "1" ||
			a.Attempts[0].Duration != 34935 || a.Attempts[0].SparkUser != "irashid" || a.Attempts[0].AppSparkVersion != "" {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("job_list", func(t *testing.T) {
		var jobs []Job
		if err := c.Jobs(ctx, hist("local-1422981780767", ""), "", collect(&jobs)); err != nil {
			t.Fatal(err)
		}
		if len(jobs) != 3 || jobs[0].JobID != 2 || jobs[1].Status != "FAILED" || jobs[0].NumTasks != 8 ||
			!reflect.DeepEqual(jobs[0].StageIDs, []int{3}) || jobs[0].JobTags == nil {
			t.Errorf("got %+v", jobs)
		}
	})
	t.Run("stage_list", func(t *testing.T) {
		var st []Stage
		if err := c.Stages(ctx, hist("app-20200706201101-0003", ""), "", collect(&st)); err != nil {
			t.Fatal(err)
		}
		if len(st) != 3 {
			t.Fatalf("%d stages, want 3", len(st))
		}
		s := st[0]
		if s.StageID != 2 || s.Status != "COMPLETE" || s.ExecutorRunTime != 25579 || s.ExecutorCPUTime != 8810338000 ||
			s.Name != "foreach at <console>:26" || s.Description != "" || st[1].Description == "" || s.PendingTasks() != 0 {
			t.Errorf("stage 2 = %+v", s)
		}
		if len(s.PeakExecutorMetrics) == 0 {
			t.Error("peakExecutorMetrics not decoded")
		}
	})
	t.Run("stage_list_failed", func(t *testing.T) {
		var st []Stage
		if err := c.Stages(ctx, hist("local-1422981780767", ""), "failed", collect(&st)); err != nil {
			t.Fatal(err)
		}
		if len(st) != 1 || st[0].Status != "FAILED" || st[0].NumFailedTasks != 1 || st[0].NumCompleteTasks != 7 ||
			!strings.Contains(st[0].FailureReason, "Lost task 3.0 in stage 2.0 (TID 19, localhost)") {
			t.Errorf("got %+v", st)
		}
	})
	t.Run("one_stage_attempt", func(t *testing.T) {
		var tasks []Task
		st, err := c.StageAttempt(ctx, hist("local-1422981780767", ""), StageKey{1, 0}, collect(&tasks))
		if err != nil {
			t.Fatal(err)
		}
		var run int64
		for _, tk := range tasks {
			run += tk.TaskMetrics.ExecutorRunTime
			if cpu, ok := tk.TaskMetrics.CPUTime(); ok || cpu != 0 {
				t.Errorf("task %d: CPU time %v recorded; Spark 1.x logs record none", tk.TaskID, cpu)
			}
		}
		if st.StageID != 1 || st.AttemptID != 0 || st.NumTasks != 8 || len(tasks) != 8 || run != 3476 {
			t.Errorf("stage %+v with %d tasks, run %d ms; want 1.0, 8 tasks, 3476 ms", st, len(tasks), run)
		}
		es := st.ExecutorSummary["driver"]
		if len(st.ExecutorSummary) != 1 || es.TaskTime != 3624 || es.SucceededTasks != 8 || es.InputBytes != 28000128 {
			t.Errorf("executorSummary = %+v", st.ExecutorSummary)
		}
	})
	t.Run("stage_attempt_with_speculation_yarn", func(t *testing.T) {
		// The same answer through the RM proxy (a running driver) and the
		// History Server.
		run, err := c.Running("application_1628109047826_1317105")
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []Source{run, hist("application_1628109047826_1317105", "")} {
			var tasks []Task
			st, err := c.StageAttempt(ctx, src, StageKey{0, 0}, collect(&tasks))
			if err != nil {
				t.Fatal(err)
			}
			sort.Slice(tasks, func(i, j int) bool { return tasks[i].TaskID < tasks[j].TaskID })
			if len(tasks) != 5 || st.NumKilledTasks != 1 || st.KilledTasksSummary["another attempt succeeded"] != 1 ||
				st.SpeculationSummary == nil || st.SpeculationSummary.NumKilledTasks != 1 || st.ExecutorDeserializeTime != 12793 {
				t.Fatalf("%s: stage %+v, %d tasks", src, st, len(tasks))
			}
			loser := tasks[4]
			if loser.Index != 3 || loser.Attempt != 1 || !loser.Speculative || loser.Status != TaskKilled || loser.Succeeded() ||
				loser.ErrorMessage != "another attempt succeeded" || loser.TaskMetrics.ExecutorRunTime != 53178 || loser.Host != "host-12291" {
				t.Errorf("speculative loser = %+v", loser)
			}
			t0 := tasks[0]
			if !t0.Succeeded() || t0.ExecutorID != "7" || t0.Duration != 2234 || t0.TaskMetrics.RunTime() != 74*time.Millisecond ||
				t0.TaskMetrics.ExecutorDeserializeTime != 2048 || t0.PartitionID != nil ||
				!t0.LaunchTime.Equal(gmt("2021-08-10T23:27:53.885GMT")) ||
				!strings.Contains(t0.ExecutorLogs["stdout"], "container_e18_1628109047826_1317105_01_000008") {
				t.Errorf("task 0 = %+v", t0)
			}
			if cpu, ok := t0.TaskMetrics.CPUTime(); !ok || cpu != 65263482*time.Nanosecond {
				t.Errorf("task 0 CPU %v %v, want 65.263482ms (ns in the answer)", cpu, ok)
			}
			// Duration = deserialize + run + result serialization +
			// scheduler delay + getting result (README §3).
			for _, tk := range tasks {
				m := tk.TaskMetrics
				if sum := m.ExecutorDeserializeTime + m.ExecutorRunTime + m.ResultSerializationTime + tk.SchedulerDelay + tk.GettingResultTime; sum != tk.Duration {
					t.Errorf("task %d: parts sum to %d ms, duration %d", tk.TaskID, sum, tk.Duration)
				}
			}
		}
	})
	taskList := func(t *testing.T, o TaskListOptions) []Task {
		var tasks []Task
		if err := c.TaskList(ctx, hist("local-1430917381534", ""), StageKey{0, 0}, o, collect(&tasks)); err != nil {
			t.Fatal(err)
		}
		return tasks
	}
	sumRun := func(ts []Task) (n int64) {
		for _, tk := range ts {
			n += tk.TaskMetrics.ExecutorRunTime
		}
		return n
	}
	t.Run("stage_task_list", func(t *testing.T) {
		ts := taskList(t, TaskListOptions{})
		if len(ts) != 20 || ts[0].TaskID != 0 || ts[19].TaskID != 19 || ts[0].TaskMetrics.ExecutorRunTime != 349 ||
			sumRun(ts) != 3770 || ts[0].ExecutorID != "driver" || ts[0].PartitionID == nil || *ts[0].PartitionID != -1 ||
			ts[0].TaskMetrics.InputMetrics.BytesRead != 49294 || ts[0].TaskMetrics.ShuffleWriteMetrics.WriteTime != 3842811 {
			t.Errorf("got %d tasks, first %+v, run %d", len(ts), ts[0], sumRun(ts))
		}
	})
	t.Run("stage_task_list_offset10_length50", func(t *testing.T) {
		ts := taskList(t, TaskListOptions{Offset: 10, Length: 50})
		if len(ts) != 50 || ts[0].TaskID != 10 || ts[49].TaskID != 59 || sumRun(ts) != 2034 {
			t.Errorf("got %d tasks %d..%d, run %d", len(ts), ts[0].TaskID, ts[len(ts)-1].TaskID, sumRun(ts))
		}
	})
	t.Run("stage_task_list_sortBy_DECREASING_RUNTIME", func(t *testing.T) {
		ts := taskList(t, TaskListOptions{SortBy: SortByDecreasingRuntime})
		if len(ts) != 20 || ts[0].TaskMetrics.ExecutorRunTime != 351 || sumRun(ts) != 3810 {
			t.Errorf("got %d tasks, run %d", len(ts), sumRun(ts))
		}
		for i := 1; i < len(ts); i++ {
			if ts[i].TaskMetrics.ExecutorRunTime > ts[i-1].TaskMetrics.ExecutorRunTime {
				t.Errorf("task %d after %d: not decreasing run time", ts[i].TaskID, ts[i-1].TaskID)
			}
		}
	})
	t.Run("stage_task_summary_custom_quantiles", func(t *testing.T) {
		s, err := c.TaskSummary(ctx, hist("local-1430917381534", ""), StageKey{0, 0}, []float64{0.01, 0.5, 0.99})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Quantiles, []float64{0.01, 0.5, 0.99}) || !reflect.DeepEqual(s.ExecutorRunTime, []float64{16, 28, 351}) ||
			!reflect.DeepEqual(s.InputMetrics.BytesRead, []float64{60488, 70564, 70565}) || s.Duration != nil {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("stage_task_summary_shuffle_read", func(t *testing.T) {
		s, err := c.TaskSummary(ctx, hist("local-1430917381534", ""), StageKey{1, 0}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Quantiles, []float64{0.05, 0.25, 0.5, 0.75, 0.95}) ||
			!reflect.DeepEqual(s.ExecutorRunTime, []float64{30, 74, 75, 76, 79}) || len(s.Duration) != 5 {
			t.Errorf("got %+v", s)
		}
	})
	executors := func(t *testing.T, src Source) []Executor {
		var ex []Executor
		if err := c.Executors(ctx, src, false, collect(&ex)); err != nil {
			t.Fatal(err)
		}
		return ex
	}
	t.Run("executor_list", func(t *testing.T) {
		ex := executors(t, hist("local-1422981780767", ""))
		if len(ex) != 1 || !ex[0].IsDriver() || ex[0].Host() != "localhost" || ex[0].TotalDuration != 9011 ||
			ex[0].CompletedTasks != 31 || ex[0].GPUs() != 0 || ex[0].ContainerID() != "" {
			t.Errorf("got %+v", ex)
		}
	})
	t.Run("executor_list_with_metrics", func(t *testing.T) {
		ex := executors(t, hist("application_1553914137147_0018", ""))
		if len(ex) != 4 {
			t.Fatalf("%d executors, want 4", len(ex))
		}
		e := ex[3]
		if e.ID != "1" || e.Host() != "test-2.vpc.company.com" || e.TotalDuration != 44900 || e.CompletedTasks != 3 ||
			e.ContainerID() != "container_1553914137147_0018_01_000002" || e.TotalCores != 1 ||
			ex[0].PeakMemoryMetrics["ProcessTreeJVMVMemory"] != 8296026112 {
			t.Errorf("executor 1 = %+v, driver peak %v", e, ex[0].PeakMemoryMetrics)
		}
	})
	t.Run("executor_list_resources_gpu", func(t *testing.T) {
		run, err := c.Running("application_1555004656427_0144")
		if err != nil {
			t.Fatal(err)
		}
		ex := executors(t, run)
		if len(ex) != 3 || ex[0].Host() != "10.28.9.112" || ex[0].GPUs() != 0 {
			t.Fatalf("got %+v", ex)
		}
		for _, e := range ex[1:] {
			if e.GPUs() != 13 || e.Host() != "tomg-test" || e.Resources["gpu"].Addresses[12] != "12" || e.ResourceProfileID != 0 {
				t.Errorf("executor %s = %+v", e.ID, e)
			}
		}
		if !ex[1].AddTime.Equal(gmt("2019-07-02T21:02:29.256GMT")) || ex[1].Attributes["NM_HTTP_ADDRESS"] != "tomg-test:8042" {
			t.Errorf("executor 2 = %+v", ex[1])
		}
	})
	t.Run("executor_list_excludeOnFailure", func(t *testing.T) {
		ex := executors(t, hist("app-20161116163331-0000", ""))
		if len(ex) != 5 {
			t.Fatalf("%d executors, want 5", len(ex))
		}
		for _, e := range ex[1:] {
			if !e.IsExcluded || !e.IsBlacklisted || e.TotalCores != 4 || e.Host() != "172.22.0.167" {
				t.Errorf("executor %s = %+v", e.ID, e)
			}
		}
		if ex[0].IsExcluded || ex[0].PeakMemoryMetrics != nil || ex[3].TotalDuration != 3152 {
			t.Errorf("driver %+v, executor 1 %+v", ex[0], ex[3])
		}
	})
	t.Run("miscellaneous_process_yarn_am", func(t *testing.T) {
		run, err := c.Running("application_1555004656427_0144")
		if err != nil {
			t.Fatal(err)
		}
		var ps []MiscProcess
		if err := c.MiscProcesses(ctx, run, collect(&ps)); err != nil {
			t.Fatal(err)
		}
		if len(ps) != 1 || ps[0].ID != "yarn-am" || ps[0].HostPort != "192.168.1.19:8042" || ps[0].TotalCores != 1 ||
			!strings.Contains(ps[0].ProcessLogs["stdout"], "container_1555004656427_0144_01_000001") {
			t.Errorf("got %+v", ps)
		}
	})

	files, err := filepath.Glob(filepath.Join("testdata", "history-server", "*.json"))
	if err != nil || len(files) != 18 {
		t.Fatalf("testdata: %d files (%v), want 18", len(files), err)
	}
	for _, f := range files {
		if g.served[filepath.Base(f)] == 0 {
			t.Errorf("%s: never read through the client", filepath.Base(f))
		}
	}
}
