package yarn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// TestRMVersionRecorded reads a real Hadoop 3.3.6 RM's /cluster/info; an
// answer without the field is an error, not an empty version.
func TestRMVersionRecorded(t *testing.T) {
	body, err := os.ReadFile("testdata/rm-cluster-info-3.3.6.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		body    []byte
		want    string
		wantErr bool
	}{
		{body, "3.3.6", false},
		{[]byte(`{"clusterInfo":{"state":"STARTED"}}`), "", true},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/ws/v1/cluster/info" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(c.body)
		}))
		cl, err := New(Config{RMAddresses: []string{srv.URL}})
		if err != nil {
			t.Fatal(err)
		}
		v, err := cl.RMVersion(context.Background())
		srv.Close()
		if v != c.want || (err != nil) != c.wantErr {
			t.Errorf("RMVersion = %q, %v; want %q, error %v", v, err, c.want, c.wantErr)
		}
	}
}
