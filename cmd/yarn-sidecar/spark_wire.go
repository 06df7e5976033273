package main

import (
	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// wireSpark builds the Spark learner when spark.enabled (issue 36): the
// Spark REST client reads running drivers through the web proxy the
// MapReduce AMs are read through (the active RM's, or yarn.web-proxy's)
// and finished apps from spark.history_server.
func wireSpark(cfg *sidecar.Config, yc yarn.Config, client *yarn.Client, learner *learn.HistoryLearner, log hclog.Logger) (*learn.SparkLearner, error) {
	if !cfg.Spark.Enabled {
		return nil, nil
	}
	hc, err := yarn.HTTPClientFor(yc.TLS)
	if err != nil {
		return nil, err
	}
	proxy := client.ActiveRM
	if yc.WebProxyAddress != "" {
		addr := yc.WebProxyAddress
		proxy = func() string { return addr }
	}
	if yc.Kerberos != nil {
		log.Warn("spark: Spark's REST API is read without SPNEGO; a kerberized proxy or History Server will refuse it")
	}
	sc, err := spark.New(spark.Config{ProxyAddress: proxy, HistoryAddress: cfg.Spark.HistoryServer, User: yc.User, Timeout: yc.Timeout,
		HTTPClient: hc, Logger: log.Named("spark")})
	if err != nil {
		return nil, err
	}
	if cfg.Spark.HistoryServer == "" {
		log.Warn("spark: no history_server: finished Spark apps are not backfilled")
	}
	return &learn.SparkLearner{HistoryLearner: learner, Spark: sparkobs.New(sc, log.Named("spark")), Budget: cfg.Spark.Budget,
		First: act.HasGoal(learner.ClassKey.ClassOf, cfg.Deadlines.SLO)}, nil
}

// loopLearner is what the loop learns with: the Spark learner when on.
func (d *deps) loopLearner() sidecar.Learner {
	if d.Spark != nil {
		return d.Spark
	}
	return d.Learner
}
