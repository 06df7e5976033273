package main

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The baseline scrape must read the mini RM's answers, or the benchmark
// would compare against nothing.
func TestExporterScrapeReadsTheMiniRM(t *testing.T) {
	c := sim.Start(t, "hetero-100", 1)
	c.RunUntil(c.Now().Add(20 * 60e9))
	got, err := exporterScrape(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got.Nodes != 100 || got.ActiveNodes != 100 || got.Apps == 0 || got.Queues == 0 {
		t.Fatalf("scrape saw %+v: want 100 nodes, 100 active, some running apps and queues", got)
	}
}
