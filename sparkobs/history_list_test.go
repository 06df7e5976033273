package sparkobs_test

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// Without a History Server address (spark.history_server unset) the
// observer lists nothing: the learner sends no listing that could only
// fail each cycle.
func TestCanListNeedsAHistoryServer(t *testing.T) {
	for _, tc := range []struct {
		history string
		want    bool
	}{{"", false}, {"hs:18080", true}} {
		c, err := spark.New(spark.Config{ProxyAddress: func() string { return "http://rm:8088" }, HistoryAddress: tc.history})
		if err != nil {
			t.Fatal(err)
		}
		if got := sparkobs.New(c, nil).CanList(); got != tc.want {
			t.Errorf("history %q: CanList %v, want %v", tc.history, got, tc.want)
		}
	}
}
