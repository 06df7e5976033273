package sparkweb_test

import (
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sparkweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// TestClientReadsMiniCluster reads the mini cluster's Spark apps with the
// sidecar's client: the running one through the RM's web proxy (rmweb
// forwarding /proxy/<app>/ to the driver UI), the finished one from the
// History Server, and checks the values against the simulation's truth.
func TestClientReadsMiniCluster(t *testing.T) {
	m := startMiniSpark(t)
	rm := httptest.NewServer(rmweb.New(m.c, rmweb.Options{SparkUI: sparkweb.DriverUI(m.c, strings.TrimPrefix(m.hs.URL, "http://"))}))
	defer rm.Close()
	cl, err := spark.New(spark.Config{ProxyAddress: func() string { return rm.URL }, HistoryAddress: strings.TrimPrefix(m.hs.URL, "http://"), Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sc := m.c.Scenario()
	// checkRuns: every successful task's executorRunTime is its stage's
	// work / true speed on its executor's type, within the noise.
	checkRuns := func(t *testing.T, src spark.Source, app string) (tasks []spark.Task) {
		var execs []spark.Executor
		if err := cl.Executors(ctx, src, true, func(e *spark.Executor) error { execs = append(execs, *e); return nil }); err != nil {
			t.Fatal(err)
		}
		typeOf := map[string]string{}
		for _, e := range execs {
			if !e.IsDriver() {
				typeOf[e.ID] = sim.ExecutorType(m.c.NodeTypeOf(e.Host()+":8041"), int64(e.GPUs()))
			}
		}
		var stages []spark.Stage
		if err := cl.Stages(ctx, src, "", func(s *spark.Stage) error { stages = append(stages, *s); return nil }); err != nil {
			t.Fatal(err)
		}
		class := strings.SplitN(app, "/", 2)[0]
		for _, st := range stages {
			if st.Status == "PENDING" {
				continue
			}
			var stTasks []spark.Task
			if _, err := cl.StageAttempt(ctx, src, spark.StageKey{StageID: st.StageID, AttemptID: st.AttemptID}, func(tk *spark.Task) error {
				stTasks = append(stTasks, *tk)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			spec, _ := sc.Class(class)
			var work float64
			for _, s := range spec.Spark.Stages {
				if s.Name == st.Name {
					work = s.TaskSeconds
				}
			}
			for _, tk := range stTasks {
				if !tk.Succeeded() {
					continue
				}
				w := work
				if st.StageID == 0 {
					w *= float64(tk.TaskMetrics.InputMetrics.BytesRead) / float64(sc.BlockSizeMB<<20)
				}
				truth := w / sc.SparkSpeed(class, st.Name, typeOf[tk.ExecutorID], 0)
				if r := tk.TaskMetrics.RunTime().Seconds() / truth; math.Abs(math.Log(r)) > 4*sc.NoiseSigma+0.01 {
					t.Errorf("%s task %d on %s: run %v, truth %.1fs", st.Name, tk.TaskID, typeOf[tk.ExecutorID], tk.TaskMetrics.RunTime(), truth)
				}
			}
			tasks = append(tasks, stTasks...)
		}
		return tasks
	}

	run, err := cl.Running(m.running)
	if err != nil {
		t.Fatal(err)
	}
	var execs []spark.Executor
	if err := cl.Executors(ctx, run, false, func(e *spark.Executor) error { execs = append(execs, *e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(execs) != 2 || execs[1].GPUs() != 1 || m.c.NodeTypeOf(execs[1].Host()+":8041") != "gpu" || execs[1].ContainerID() == "" {
		t.Fatalf("running g app's executors: %+v", execs)
	}
	if tasks := checkRuns(t, run, "g"); len(tasks) == 0 {
		t.Error("running app: no tasks")
	}

	// The finished app: the proxy redirects to the History Server, which
	// needs the cluster-mode attempt.
	gone, _ := cl.Running(m.finished)
	if err := cl.Executors(ctx, gone, false, func(*spark.Executor) error { return nil }); !errors.Is(err, spark.ErrNotRunning) {
		t.Errorf("finished app through the proxy: err %v, want ErrNotRunning", err)
	}
	noAttempt, _ := cl.History(m.finished, "")
	info, err := cl.Application(ctx, noAttempt)
	if err != nil || len(info.Attempts) != 1 || info.Attempts[0].AttemptID != "1" || !info.Attempts[0].Completed {
		t.Fatalf("application: %+v, %v", info, err)
	}
	var re *spark.RemoteError
	if err := cl.Stages(ctx, noAttempt, "", func(*spark.Stage) error { return nil }); !errors.As(err, &re) || re.Status != 404 || !strings.Contains(re.Message, "no such app") {
		t.Errorf("stages without the attempt: %v, want 404 no such app", err)
	}
	hist, _ := cl.History(m.finished, info.Attempts[0].AttemptID)
	tasks := checkRuns(t, hist, "q")
	var killed, specWon int
	for _, tk := range tasks {
		if tk.Status == spark.TaskKilled {
			killed++
			if tk.ErrorMessage != "another attempt succeeded" {
				t.Errorf("killed task %+v", tk)
			}
		}
		if tk.Speculative && tk.Succeeded() {
			specWon++
		}
	}
	if killed == 0 || specWon == 0 {
		t.Errorf("finished q app: %d killed, %d speculative winners; want both > 0 (a slow node)", killed, specWon)
	}
	if n := cl.Requests(); n == 0 {
		t.Error("no requests counted")
	}
}
