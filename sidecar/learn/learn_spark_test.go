package learn_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sparkweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// The SparkLearner, run each minute of spark-only on the mini cluster,
// keeps Spark stage classes in the durable history: a reopened store
// holds them, and the table knows the GPU class's GPU executors at about
// 3x its CPU executors' speed.
func TestSparkLearnerOnMiniCluster(t *testing.T) {
	sc, err := sim.LoadScenario("spark-only")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sc, 5)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sparkweb.HistoryServer(c))
	defer hs.Close()
	hsAddr := strings.TrimPrefix(hs.URL, "http://")
	rm := httptest.NewServer(rmweb.New(c, rmweb.Options{SparkUI: sparkweb.DriverUI(c, hsAddr)}))
	defer rm.Close()
	yc, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}, JHSAddress: rm.URL})
	if err != nil {
		t.Fatal(err)
	}
	spc, err := spark.New(spark.Config{ProxyAddress: yc.ActiveRM, HistoryAddress: hsAddr})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.db")
	store, err := calibrate.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	classifier := calibrate.Classifier{Rules: []calibrate.NodeTypeRule{{Name: "cpu-old", HostPattern: "cpu-old-*"},
		{Name: "cpu-new", HostPattern: "cpu-new-*"}, {Name: "gpu", HostPattern: "gpu-*"}}}
	l := &learn.SparkLearner{HistoryLearner: &learn.HistoryLearner{Source: yc, Store: store, Classifier: classifier, ClassKey: "tag"},
		Spark: sparkobs.New(spc, nil), Budget: 20}
	ctx := context.Background()
	nodes, err := yc.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000 && !c.Done(); i++ {
		c.Step(time.Minute)
		apps, err := yc.Apps(ctx, "RUNNING")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Learn(ctx, cluster.Snapshot{Time: c.Now(), Nodes: nodes, Apps: apps}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 20; i++ { // backfill what the last cycles left
		c.Step(time.Minute)
		if err := l.Learn(ctx, cluster.Snapshot{Time: c.Now(), Nodes: nodes}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Refresh(); err != nil {
		t.Fatal(err)
	}
	stage := sparkobs.StageClass("features", "load at Features.scala:12")
	gpu, ok1 := l.Table().Rate(stage, "gpu/gpu")
	cpu, ok2 := l.Table().Rate(stage, "cpu-new")
	if !ok1 || !ok2 || !gpu.Known || !cpu.Known {
		t.Fatalf("%s: gpu/gpu %+v, cpu-new %+v; types %v", stage, gpu, cpu, l.Table().Types(stage))
	}
	if r := gpu.Ratio / cpu.Ratio; r < 3/1.2*0.9 || r > 3/1.2*1.1 {
		t.Errorf("GPU executors %.2fx cpu-new's, want 2.5x (3.0 vs 1.2)", r)
	}
	n, err := store.Count()
	if err != nil || n == 0 {
		t.Fatalf("store count %d, %v", n, err)
	}
	store.Close()
	again, err := calibrate.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if m, _ := again.Count(); m != n {
		t.Errorf("reopened history: %d samples, want %d", m, n)
	}
}
