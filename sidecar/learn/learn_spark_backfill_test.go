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

// TestSparkBackfillAfterRestart: a sidecar learns spark-only's apps each
// minute, is killed (its memory gone, the history file as last
// committed), stays down while apps finish, and comes back: the apps
// that finished while it was down are listed from the History Server
// since the durable cursor and learned, every successful task of every
// finished app is in the history exactly once (no double counting of the
// apps it had half read before the kill), and a further restart with
// nothing new sends only the listing.
func TestSparkBackfillAfterRestart(t *testing.T) {
	sc, err := sim.LoadScenario("spark-only")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sc, 3)
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
	ctx := context.Background()
	nodes, err := yc.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.db")
	classifier := calibrate.Classifier{Rules: []calibrate.NodeTypeRule{{Name: "cpu-old", HostPattern: "cpu-old-*"},
		{Name: "cpu-new", HostPattern: "cpu-new-*"}, {Name: "gpu", HostPattern: "gpu-*"}}}
	// start is a sidecar process: a fresh learner and observer on the
	// history file.
	var requests func() int64
	start := func() (*learn.SparkLearner, *calibrate.Store) {
		store, err := calibrate.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		spc, err := spark.New(spark.Config{ProxyAddress: yc.ActiveRM, HistoryAddress: hsAddr})
		if err != nil {
			t.Fatal(err)
		}
		requests = spc.Requests
		return &learn.SparkLearner{HistoryLearner: &learn.HistoryLearner{Source: yc, Store: store, Classifier: classifier, ClassKey: "tag"},
			Spark: sparkobs.New(spc, nil), Budget: 20}, store
	}
	cycle := func(l *learn.SparkLearner) {
		t.Helper()
		c.Step(time.Minute)
		apps, err := yc.Apps(ctx, "RUNNING")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Learn(ctx, cluster.Snapshot{Time: c.Now(), Nodes: nodes, Apps: apps}); err != nil {
			t.Fatal(err)
		}
	}
	finishedApps := func() map[string]bool {
		out := map[string]bool{}
		for _, a := range c.SparkApps() {
			if !a.End.IsZero() {
				out[a.ID] = true
			}
		}
		return out
	}

	l, store := start()
	for i := 0; i < 40; i++ {
		cycle(l)
	}
	before := finishedApps()
	if len(before) == 0 {
		t.Fatal("no Spark app finished in the first 40 minutes")
	}
	store.Close() // killed: nothing flushed beyond what each Learn committed
	for i := 0; i < 30; i++ {
		c.Step(time.Minute) // down for 30 minutes
	}
	down := 0
	for id := range finishedApps() {
		if !before[id] {
			down++
		}
	}
	if down == 0 {
		t.Fatal("no Spark app finished while the sidecar was down")
	}
	l, store = start()
	for i := 0; i < 1000 && !c.Done(); i++ {
		cycle(l)
	}
	for i := 0; i < 15; i++ { // past SparkHistoryLag: the cursor catches up
		cycle(l)
	}
	// Every successful task of every finished app, once.
	got := map[string]int{}
	samples, err := store.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if strings.HasPrefix(s.AttemptID, "spark/") {
			got[s.JobID]++
		}
	}
	for _, a := range c.SparkApps() {
		want := 0
		for _, st := range a.Stages {
			for _, tk := range st.Tasks {
				if tk.Status == "SUCCESS" && tk.RunMs > 0 {
					want++
				}
			}
		}
		if got[a.ID] != want {
			t.Errorf("%s (finished while down: %v): %d samples in the history, want its %d successful tasks", a.ID, !before[a.ID], got[a.ID], want)
		}
	}
	cursor, err := store.SparkCursor()
	if err != nil || cursor.IsZero() || cursor.After(c.Now()) {
		t.Errorf("Spark cursor %v (%v), want set and not after %v", cursor, err, c.Now())
	}
	n, _ := store.Count()
	store.Close()

	// Restarted again with nothing new: the listing, and a read of the
	// apps that ended at the cursor's instant (minEndDate is inclusive),
	// nothing stored twice.
	atCursor, reads := 0, 0
	for _, a := range c.SparkApps() {
		if !a.End.Before(cursor) {
			atCursor++
			reads += 4 + len(a.Stages) // app, attempt's executors, stages, each stage's tasks
		}
	}
	l, store = start()
	defer store.Close()
	cycle(l)
	if r := requests(); r > int64(1+reads) {
		t.Errorf("restart with nothing new: %d Spark requests, want at most %d (the listing, %d apps at the cursor)", r, 1+reads, atCursor)
	}
	if m, _ := store.Count(); m != n {
		t.Errorf("history %d samples after the last restart, want %d", m, n)
	}
	t.Logf("%d apps finished while down; %d samples; cursor %v (now %v)", down, n, cursor, c.Now())
}
