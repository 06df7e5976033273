package yarn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The input dir comes from the AM's conf as a real 3.3.6 AM serves it
// (recorded), and from JobHistory once the AM is gone.
func TestJobInputDir(t *testing.T) {
	body, err := os.ReadFile("testdata/am-conf-3.3.6.json")
	if err != nil {
		t.Fatal(err)
	}
	const job = "job_1795412916926_0003"
	mux := http.NewServeMux()
	mux.HandleFunc("/proxy/application_1795412916926_0003/ws/v1/mapreduce/jobs/"+job+"/conf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	mux.HandleFunc("/ws/v1/history/mapreduce/jobs/job_1795412916926_0009/conf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"conf":{"path":"x","property":[{"name":"mapreduce.input.fileinputformat.inputdir","value":"hdfs://nn:8020/a,hdfs://nn:8020/b\\,c"}]}}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := New(Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.JobInputDir(context.Background(), cluster.App{ID: "application_1795412916926_0003"}, job)
	if err != nil || got != "hdfs://127.0.0.1:9000/user/root/in-12" {
		t.Errorf("AM conf: %q, %v", got, err)
	}
	got, err = c.JobInputDir(context.Background(), cluster.App{ID: "application_1795412916926_0009"}, "job_1795412916926_0009")
	if err != nil || got != `hdfs://nn:8020/a,hdfs://nn:8020/b\,c` {
		t.Errorf("JobHistory conf after the AM's 404: %q, %v", got, err)
	}
}
