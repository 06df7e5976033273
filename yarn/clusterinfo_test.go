package yarn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// The recorded /cluster/info of a real Hadoop 3.3.6 RM: its hadoopVersion
// tells the sidecar that weights (capacity=Nw) would be refused.
func TestClusterInfoRecorded336(t *testing.T) {
	body, err := os.ReadFile("testdata/real-3.3.6/cluster_info.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ws/v1/cluster/info" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c, err := New(Config{RMAddresses: []string{srv.URL}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.ClusterInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.HadoopVersion != "3.3.6" || info.ResourceManagerVer != "3.3.6" {
		t.Errorf("info = %+v, want hadoopVersion 3.3.6", info)
	}
}
