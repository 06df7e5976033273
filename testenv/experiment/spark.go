package experiment

import (
	"context"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// hasSpark reports a scenario with Spark classes: the sidecar then runs
// as the daemon does with spark.enabled (issue 36).
func hasSpark(sc *sim.Scenario) bool {
	for _, c := range sc.Classes {
		if c.Spark != nil {
			return true
		}
	}
	return false
}

// sparkClient reads the mini cluster's Spark apps: drivers behind its RM
// proxy, the History Server on the RM's port (sim.Cluster.Handler).
func sparkClient(client *yarn.Client, rmURL string) (*spark.Client, error) {
	return spark.New(spark.Config{ProxyAddress: client.ActiveRM, HistoryAddress: strings.TrimPrefix(rmURL, "http://")})
}

// sparkLearner is the daemon's SparkLearner over the mini cluster.
func sparkLearner(client *yarn.Client, rmURL string, h *learn.HistoryLearner, first func(cluster.App) bool) (*learn.SparkLearner, error) {
	sc, err := sparkClient(client, rmURL)
	if err != nil {
		return nil, err
	}
	return &learn.SparkLearner{HistoryLearner: h, Spark: sparkobs.New(sc, nil), First: first}, nil
}

// ingestSparkHistory backfills a finished run's Spark apps into the
// store (the warm-up day's history).
func ingestSparkHistory(ctx context.Context, client *yarn.Client, rmURL string, store *calibrate.Store, classifier calibrate.Classifier, key calibrate.ClassKey) error {
	sc, err := sparkClient(client, rmURL)
	if err != nil {
		return err
	}
	finished, err := client.Apps(ctx, "FINISHED")
	if err != nil {
		return err
	}
	nodes, err := client.Nodes(ctx)
	if err != nil {
		return err
	}
	obs := sparkobs.New(sc, nil)
	ns := sparkobs.NodesOf(nodes, classifier.Types(nodes))
	for {
		samples, n, errs := obs.Backfill(ctx, finished, ns, key.ClassOf, -1)
		if len(errs) > 0 {
			return errs[0]
		}
		if _, err := store.Add(samples); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
}
