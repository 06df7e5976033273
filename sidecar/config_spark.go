package sidecar

import (
	"fmt"
	"net/url"
	"strings"
)

// SparkConfig switches on learning from Spark applications (issue 36):
// running apps are read through the RM's web proxy, finished ones from
// the Spark History Server, and their tasks calibrate Spark stage classes
// in the same history as MapReduce's (SparkLearner).
type SparkConfig struct {
	// Enabled turns it on (default off: a cluster without Spark sends
	// no request for it).
	Enabled bool `yaml:"enabled"`
	// HistoryServer is spark.yarn.historyServer.address: host:port
	// (Spark's form, e.g. ${hadoopconf-yarn.resourcemanager.hostname}:18080
	// resolved) or http(s)://host:port. Empty: finished apps are not
	// backfilled.
	HistoryServer string `yaml:"history_server"`
	// Budget bounds the Spark REST requests of one cycle (0: 400, the
	// job budget's default; negative: no bound).
	Budget int `yaml:"budget"`
}

func (s SparkConfig) validate() []string {
	var bad []string
	if a := strings.TrimSpace(s.HistoryServer); a != "" {
		if !strings.Contains(a, "://") {
			a = "http://" + a
		}
		if u, err := url.Parse(a); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			bad = append(bad, fmt.Sprintf("spark.history_server: %q is not host:port or http(s)://host:port", s.HistoryServer))
		}
	}
	if s.HistoryServer != "" && !s.Enabled {
		bad = append(bad, "spark.history_server: set, but spark.enabled is false")
	}
	return bad
}
