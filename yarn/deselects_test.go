package yarn

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// /apps leaves out the fields observe never reads; an RM before YARN-6871
// (3.1 and older) refuses the newer literals with a 400 and is then asked
// with resourceRequests only, that time and after.
func TestAppsDeSelects(t *testing.T) {
	for _, old := range []bool{false, true} {
		rp := newReplay(t)
		var queries []string
		rec := loadRecorded(t, "running/rm_apps_states_RUNNING")
		rp.handle("/ws/v1/cluster/apps", func(w http.ResponseWriter, r *http.Request) {
			ds := r.URL.Query().Get("deSelects")
			queries = append(queries, ds)
			if old && ds != "resourceRequests" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"RemoteException":{"exception":"BadRequestException","message":"java.lang.Exception: Invalid deSelects string timeouts specified. It should be one of [resourceRequests]","javaClassName":"org.apache.hadoop.yarn.webapp.BadRequestException"}}`))
				return
			}
			rec.serve(w, nil)
		})
		c, err := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			apps, err := c.Apps(context.Background(), "RUNNING")
			if err != nil || len(apps) != 2 || len(apps[0].UsageByPartition) == 0 {
				t.Fatalf("old RM %v, read %d: %d apps, %v", old, i, len(apps), err)
			}
		}
		want := []string{"resourceRequests,timeouts,amNodeLabelExpression", "resourceRequests,timeouts,amNodeLabelExpression"}
		if old {
			want = []string{"resourceRequests,timeouts,amNodeLabelExpression", "resourceRequests", "resourceRequests"}
		}
		if strings.Join(queries, " | ") != strings.Join(want, " | ") {
			t.Errorf("old RM %v: deSelects sent %q, want %q", old, queries, want)
		}
	}
}
