package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// Issue 36 item 5 on the mini cluster running spark-only: after a daemon
// learned the first part of the day (its history in the store),
// `deadlines` judges the running Spark apps by their stages' remaining
// work: sql (SLO 10h) on track, etl (SLO 1m, already past) at risk,
// their P50s near how they really finish; `status` lists the Spark apps
// with their stage in progress, tasks and executors per type; neither
// changes the scheduler configuration.
func TestDeadlinesAndStatusJudgeSparkApps(t *testing.T) {
	sc, err := sim.LoadScenario("spark-only")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sc, 5)
	if err != nil {
		t.Fatal(err)
	}
	// The RM (its scheduler-conf mutable, as the scenario's options say)
	// with the drivers behind its proxy and the History Server on its port.
	rm := httptest.NewServer(c.Handler())
	defer rm.Close()
	hsAddr := strings.TrimPrefix(rm.URL, "http://")
	dir := t.TempDir()
	store := filepath.Join(dir, "history.db")
	ctx := context.Background()

	// The daemon of the morning: the SparkLearner each minute until a
	// dozen apps have finished.
	yc, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}, JHSAddress: rm.URL})
	if err != nil {
		t.Fatal(err)
	}
	spc, err := spark.New(spark.Config{ProxyAddress: yc.ActiveRM, HistoryAddress: hsAddr})
	if err != nil {
		t.Fatal(err)
	}
	st, err := calibrate.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	classifier := calibrate.Classifier{Rules: []calibrate.NodeTypeRule{{Name: "cpu-old", HostPattern: "cpu-old-*"},
		{Name: "cpu-new", HostPattern: "cpu-new-*"}, {Name: "gpu", HostPattern: "gpu-*"}}}
	l := &learn.SparkLearner{HistoryLearner: &learn.HistoryLearner{Source: yc, Store: st, Classifier: classifier, ClassKey: "tag"},
		Spark: sparkobs.New(spc, nil), Budget: 50}
	nodes, err := yc.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "sidecar.yaml")
	conf := "mode: apply\nrm: [" + rm.URL + "]\njobhistory: " + rm.URL + "\nuser: yarn-sidecar\nstore: " + store +
		"\naudit_log: " + filepath.Join(dir, "audit.jsonl") + "\njob_class: {by: tag}\n" +
		"node_types:\n  - {name: cpu-old, host_pattern: 'cpu-old-*'}\n  - {name: cpu-new, host_pattern: 'cpu-new-*'}\n  - {name: gpu, host_pattern: 'gpu-*'}\n" +
		"spark: {enabled: true, history_server: " + hsAddr + "}\ndeadlines: {slo: {sql: 10h, etl: 1m}, samples: 200}\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	// At three points of the day (8, 16, 24 apps finished), with the
	// morning's daemon stopped (the store is the CLI's then): deadlines
	// and status.
	type judgement struct {
		deadline.JobReport
		at time.Time
	}
	judged := map[string]judgement{}
	verdicts := map[string]int{}
	statusApps, withExecutors := 0, 0
	for _, point := range []int{8, 16, 24} {
		for i := 0; i < 600; i++ {
			c.Step(time.Minute)
			apps, err := yc.Apps(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Learn(ctx, cluster.Snapshot{Time: c.Now(), Nodes: nodes, Apps: apps}); err != nil {
				t.Fatal(err)
			}
			if finished(apps) >= point && running(apps) > 0 {
				break
			}
		}
		st.Close()
		before := confVersion(t, rm.URL)
		history, err := os.ReadFile(store)
		if err != nil {
			t.Fatal(err)
		}
		now := c.Now()
		var queues []deadline.QueueReport
		if err := json.Unmarshal([]byte(runStatusCLI(t, "deadlines", "--config", cfg, "-o", "json", "--log-level", "error")), &queues); err != nil {
			t.Fatal(err)
		}
		goals := verdicts[deadline.OnTrack] + verdicts[deadline.AtRisk] + verdicts[deadline.CannotMeet]
		for _, q := range queues {
			for _, j := range q.Jobs {
				if j.Method != "spark-stages" {
					t.Errorf("%s (%s): method %q, want spark-stages (every app of spark-only is Spark)", j.AppID, j.Class, j.Method)
					continue
				}
				if j.P50.IsZero() { // no task times for a stage yet (a class's first runs)
					if j.Deadline != nil && j.Verdict != "unknown (no task times for its stages yet)" {
						t.Errorf("%s (%s): no outlook, verdict %q", j.AppID, j.Class, j.Verdict)
					}
					verdicts["unknown"]++
					continue
				}
				// With a goal (a deadline= tag, else the class's SLO):
				// on track at P(meet) ≥ the confidence, else at risk —
				// or cannot meet when even the queue's maximum of
				// executors would not (the executor search): then the
				// executors it needs are the queue's maximum.
				want := deadline.NoGoal
				if j.Deadline != nil {
					want = deadline.AtRisk
					if j.PMeet != nil && *j.PMeet >= 0.9 {
						want = deadline.OnTrack
					} else if j.Verdict == deadline.CannotMeet {
						want = deadline.CannotMeet
						if q.MaxAllowed > 0 && j.Needed != max(q.MaxAllowed, j.Held) {
							t.Errorf("%s (%s): cannot meet, needs %d executors, want the queue's maximum %d", j.AppID, j.Class, j.Needed, q.MaxAllowed)
						}
					}
					if j.NeededIsHeld || j.Needed < 1 {
						t.Errorf("%s (%s): needs %d executors (held: %v), want a search over executors", j.AppID, j.Class, j.Needed, j.NeededIsHeld)
					}
				}
				if j.Verdict != want || (want != deadline.NoGoal && j.PMeet == nil) {
					t.Errorf("%s (%s): verdict %q P(meet) %v, want %q with a P(meet)", j.AppID, j.Class, j.Verdict, pmeet(j.PMeet), want)
					continue
				}
				if !j.P50.After(now) || j.Remaining <= 0 {
					t.Errorf("%s (%s): P50 %v (now %v), %d tasks left", j.AppID, j.Class, j.P50, now, j.Remaining)
					continue
				}
				verdicts[j.Verdict]++
				if _, ok := judged[j.AppID]; !ok {
					judged[j.AppID] = judgement{j, now}
				}
			}
		}
		if verdicts[deadline.OnTrack]+verdicts[deadline.AtRisk]+verdicts[deadline.CannotMeet] > goals { // judged with a goal at this point
			if text := runStatusCLI(t, "deadlines", "--config", cfg, "--log-level", "error"); strings.Contains(text, " (held)") {
				t.Errorf("the deadlines table says a Spark app's containers needed are those it holds, not the executor search's:\n%s", text)
			}
		}
		out := runStatusCLI(t, "status", "--config", cfg, "-o", "json", "--log-level", "error")
		var doc report.StatusDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		for _, a := range doc.SparkApps {
			held := 0
			for _, n := range a.Executors {
				held += n
			}
			// An app may hold no executor yet (a GPU executor waits for a
			// lent GPU node: the RM's non-partitioned-first rule), but
			// then none of its tasks runs.
			if a.Class == "" || a.Stages == 0 || a.TasksDone+a.TasksActive+a.TasksPending == 0 || held == 0 && a.TasksActive > 0 {
				t.Errorf("status's Spark app %+v: want its class, stages, tasks and executors", a)
			}
			if held > 0 {
				withExecutors++
			}
		}
		statusApps += len(doc.SparkApps)
		if len(doc.SparkApps) > 0 && point == 8 {
			page := filepath.Join(t.TempDir(), "report.html")
			runStatusCLI(t, "report", "--config", cfg, "--html", page, "--log-level", "error")
			html, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(html), `id="spark-apps"`) || !strings.Contains(string(html), doc.SparkApps[0].AppID) {
				t.Errorf("the HTML report lacks the Spark apps' table")
			}
		}
		if len(doc.SparkApps) > 0 {
			if text := runStatusCLI(t, "status", "--config", cfg, "--log-level", "error"); !strings.Contains(text, "SPARK APP") || !strings.Contains(text, doc.SparkApps[0].AppID) {
				t.Errorf("status's table lacks the Spark apps:\n%s", text)
			}
		}
		if after := confVersion(t, rm.URL); after != before {
			t.Errorf("deadlines/status changed the scheduler configuration: version %d → %d", before, after)
		}
		if again, err := os.ReadFile(store); err != nil || !bytes.Equal(again, history) {
			t.Errorf("deadlines/status/report wrote to the history (%v)", err)
		}
		if st, err = calibrate.Open(store); err != nil {
			t.Fatal(err)
		}
		l.Store = st
	}
	st.Close()
	if withExecutors == 0 {
		t.Errorf("no Spark app in status showed its executors")
	}
	if verdicts[deadline.OnTrack] == 0 || verdicts[deadline.AtRisk]+verdicts[deadline.CannotMeet] == 0 || statusApps == 0 {
		t.Fatalf("verdicts %v, %d Spark apps in status: want both on track (sql's 10h SLO) and at risk or cannot meet (etl's 1m), and apps listed", verdicts, statusApps)
	}

	// The P50s against how the apps really finished, as a share of their
	// completion time (the bench's measure), and the verdicts against
	// whether they met their goals.
	for i := 0; i < 2000 && !c.Done(); i++ {
		c.Step(30 * time.Second)
	}
	apps, err := yc.Apps(ctx, "FINISHED")
	if err != nil {
		t.Fatal(err)
	}
	var errs []float64
	for _, a := range apps {
		j, ok := judged[a.ID]
		if !ok {
			continue
		}
		e := math.Abs(j.P50.Sub(a.FinishedTime).Seconds()) / a.FinishedTime.Sub(a.StartedTime).Seconds()
		errs = append(errs, e)
		t.Logf("%s (%s): judged %v in, P50 off by %.0f%% of its %v; %s", a.ID, j.Class, j.at.Sub(a.StartedTime), e*100, a.FinishedTime.Sub(a.StartedTime), j.Verdict)
		if j.Deadline == nil {
			continue
		}
		met := !a.FinishedTime.After(*j.Deadline)
		if (j.Verdict == deadline.OnTrack && !met) || (j.Verdict != deadline.OnTrack && *j.PMeet < 0.1 && met) {
			t.Errorf("%s (%s): %s at P(meet) %.2f, yet it finished %v (deadline %v)", a.ID, j.Class, j.Verdict, *j.PMeet, a.FinishedTime, *j.Deadline)
		}
	}
	if len(errs) != len(judged) {
		t.Fatalf("%d of %d judged apps finished", len(errs), len(judged))
	}
	sort.Float64s(errs)
	if med := errs[len(errs)/2]; med > 0.15 {
		t.Errorf("median P50 error %.0f%% of the completion time over %d apps, want ≤15%%", med*100, len(errs))
	}
}

func finished(apps []cluster.App) int {
	n := 0
	for _, a := range apps {
		if a.State == cluster.AppFinished {
			n++
		}
	}
	return n
}

func running(apps []cluster.App) int {
	n := 0
	for _, a := range apps {
		if a.State == cluster.AppRunning {
			n++
		}
	}
	return n
}

func pmeet(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}
