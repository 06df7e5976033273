package sparkobs_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sparkweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// On the mini cluster running spark-only, observing every 30 s of
// virtual time within a small budget, then backfilling from the History
// Server: every successful task of every app becomes exactly one sample
// (killed speculative copies none), and no cycle exceeds its budget.
func TestObserveAndBackfillOnMiniCluster(t *testing.T) {
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
	yc, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}})
	if err != nil {
		t.Fatal(err)
	}
	sc2, err := spark.New(spark.Config{ProxyAddress: yc.ActiveRM, HistoryAddress: hsAddr, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns, err := yc.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, n := range ns {
		types[n.ID] = c.NodeTypeOf(n.ID)
	}
	nodes := sparkobs.NodesOf(ns, types)
	classOf := calibrate.ClassKey("tag").ClassOf
	obs := sparkobs.New(sc2, nil)
	const budget = 5
	seen := map[string]bool{}
	add := func(samples []calibrate.Sample) {
		for _, s := range samples {
			if seen[s.AttemptID] {
				t.Errorf("sample %s twice", s.AttemptID)
			}
			seen[s.AttemptID] = true
		}
	}
	var cycles, maxReq, skipped int
	for !c.Done() && cycles < 2000 {
		c.Step(30 * time.Second)
		apps, err := yc.Apps(ctx, "RUNNING")
		if err != nil {
			t.Fatal(err)
		}
		cy := obs.Observe(ctx, c.Now(), apps, nodes, sparkobs.Options{Budget: budget, ClassOf: classOf})
		for _, e := range cy.Errors {
			t.Errorf("cycle %d: %v", cycles, e)
		}
		add(cy.Samples)
		maxReq = max(maxReq, cy.Requests)
		skipped += cy.Skipped
		cycles++
	}
	if !c.Done() {
		t.Fatal("scenario did not finish")
	}
	during := len(seen)
	finished, err := yc.Apps(ctx, "FINISHED")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		samples, n, errs := obs.Backfill(ctx, finished, nodes, classOf, budget)
		for _, e := range errs {
			t.Errorf("backfill: %v", e)
		}
		if n > budget {
			t.Errorf("backfill sent %d requests, budget %d", n, budget)
		}
		add(samples)
		if n == 0 {
			break
		}
	}
	want := 0
	for _, a := range c.SparkApps() {
		for _, st := range a.Stages {
			for _, tk := range st.Tasks {
				if tk.Status == "SUCCESS" {
					want++
				}
			}
		}
	}
	if len(seen) != want || maxReq > budget || during == 0 || skipped == 0 {
		t.Errorf("samples %d (while running %d), successful tasks %d; most requests in a cycle %d (budget %d); skipped %d",
			len(seen), during, want, maxReq, budget, skipped)
	}
	for _, a := range c.SparkApps() {
		n, got := 0, 0
		for _, st := range a.Stages {
			for _, tk := range st.Tasks {
				if tk.Status == "SUCCESS" {
					n++
					if seen["spark/"+a.ID+"/"+itoa(tk.TaskID)] {
						got++
					}
				}
			}
		}
		if n != got {
			t.Logf("%s: %d of %d tasks sampled", a.ID, got, n)
			for _, st := range a.Stages {
				k, g := 0, 0
				for _, tk := range st.Tasks {
					if tk.Status == "SUCCESS" {
						k++
						if seen["spark/"+a.ID+"/"+itoa(tk.TaskID)] {
							g++
						}
					}
				}
				t.Logf("  stage %d %s %s: %d/%d", st.ID, st.Name, st.Status, g, k)
			}
		}
	}
	t.Logf("%d cycles, %d samples while running, %d after backfill, %d app reads skipped by the budget", cycles, during, len(seen), skipped)
	_ = cluster.AppRunning
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
