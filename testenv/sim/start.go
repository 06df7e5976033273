package sim

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sparkweb"
)

// Handler serves the cluster's RM, AM-proxy and JobHistory REST APIs.
//
// Spark apps' drivers are served behind the RM's proxy, and the Spark
// History Server on the same port under /api/v1/ (as JobHistory is):
// spark.yarn.historyServer.address is the RM's host:port.
func (c *Cluster) Handler() http.Handler {
	o := c.RMOptions()
	o.SparkUI = sparkweb.DriverUI(c, "")
	rm := rmweb.New(c, o)
	hs := sparkweb.HistoryServer(c)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v1/") || r.URL.Path == "/api/v1" {
			hs.ServeHTTP(w, r)
			return
		}
		rm.ServeHTTP(w, r)
	})
}

// RMOptions are the RM web options the scenario asks for (conf store,
// Hadoop version, priorities).
func (c *Cluster) RMOptions() rmweb.Options {
	return rmweb.Options{ClusterTimestamp: c.clusterTS, MutableConfStore: !c.sc.FileStore,
		ValidateBrokenAsLevelDB: c.sc.ConfStore == "leveldb", HadoopVersion: c.sc.HadoopVersion,
		MaxAppPriority: c.sc.MaxAppPriority, HAState: "ACTIVE", ReplaceLabelsReadEmpty: c.sc.LabelWritesReadEmpty,
		ConfFile: c.confFileLocked()}
}

// StartHA serves the cluster as an RM HA pair (rm1 active, rm2 standby) on
// loopback for a test; see rmweb.HAPair for failover. Both stop at the
// test's end.
func (c *Cluster) StartHA(t testing.TB) *rmweb.HAPair {
	t.Helper()
	p, err := rmweb.StartHAPair(c, c.RMOptions())
	if err != nil {
		t.Fatalf("start RM HA pair: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestCluster is a cluster served on a loopback httptest server.
type TestCluster struct {
	*Cluster
	URL string
}

// Start builds a scenario's cluster and serves it on loopback for a test;
// the server stops at the test's end.
func Start(t testing.TB, scenario string, seed int64) *TestCluster {
	t.Helper()
	sc, err := LoadScenario(scenario)
	if err != nil {
		t.Fatalf("load scenario: %v", err)
	}
	c, err := NewCluster(sc, seed)
	if err != nil {
		t.Fatalf("new cluster: %v", err)
	}
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return &TestCluster{Cluster: c, URL: srv.URL}
}

func (c *Cluster) confFileLocked() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.confFile
}
