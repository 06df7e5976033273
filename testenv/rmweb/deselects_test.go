package rmweb_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// ?deSelects= leaves out exactly the named app fields (RMWebServices'
// DeSelectFields, YARN-6280 and YARN-6871), literals matched case
// insensitively; an unknown literal is a 400, as on a real RM.
func TestAppsDeSelects(t *testing.T) {
	rm := sim.Start(t, "lee-gpu", 1)
	rm.Step(3 * time.Minute)
	get := func(query string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Get(rm.URL + "/ws/v1/cluster/apps?states=RUNNING" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Apps struct {
				App []map[string]any `json:"app"`
			} `json:"apps"`
		}
		if resp.StatusCode == http.StatusOK {
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || len(body.Apps.App) == 0 {
				t.Fatalf("%s: %v, %d apps", query, err, len(body.Apps.App))
			}
			return resp.StatusCode, body.Apps.App[0]
		}
		return resp.StatusCode, nil
	}
	fields := []string{"resourceRequests", "timeouts", "amNodeLabelExpression", "resourceInfo"}
	_, all := get("")
	for _, f := range fields {
		if _, ok := all[f]; !ok {
			t.Fatalf("by default a running app carries %s: %v", f, all)
		}
	}
	for _, f := range fields {
		code, app := get("&deSelects=" + strings.ToUpper(f[:1]) + f[1:])
		if code != http.StatusOK {
			t.Fatalf("deSelects=%s: HTTP %d", f, code)
		}
		for _, g := range fields {
			if _, ok := app[g]; ok == (g == f) {
				t.Errorf("deSelects=%s: %s present %v", f, g, ok)
			}
		}
	}
	if code, app := get("&deSelects=resourceRequests,timeouts&deSelects=resourceInfo"); code != http.StatusOK || app["resourceInfo"] != nil || app["timeouts"] != nil || app["resourceRequests"] != nil || app["id"] == nil {
		t.Errorf("several deSelects: HTTP %d, %v", code, app)
	}
	if code, _ := get("&deSelects=resourceRequests,nosuch"); code != http.StatusBadRequest {
		t.Errorf("unknown deSelects literal: HTTP %d, want 400", code)
	}
}
