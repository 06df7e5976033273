package yarn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// TestClusterInfoRecorded reads a real Hadoop 3.3.6 RM's /cluster/info.
func TestClusterInfoRecorded(t *testing.T) {
	body, err := os.ReadFile("testdata/rm-cluster-info-3.3.6.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ws/v1/cluster/info" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer srv.Close()
	c, err := New(Config{RMAddresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.ClusterInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.HadoopVersion != "3.3.6" || info.HAState != "ACTIVE" || info.State != "STARTED" {
		t.Fatalf("cluster info = %+v, want hadoopVersion 3.3.6, ACTIVE, STARTED", info)
	}
}
