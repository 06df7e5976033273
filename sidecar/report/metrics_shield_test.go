package report

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
)

// TestShieldMetrics: the metrics count the shields held and give each
// one's age at the status's time, and pass promlint.
func TestShieldMetrics(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	board := &sidecar.StatusBoard{}
	board.Update(func(st *sidecar.Status) {
		st.Time = now
		st.Preemption = &sidecar.PreemptionStatus{PreemptionState: sidecar.PreemptionState{On: true, Source: decide.PreemptionFromRM},
			Shielded: []string{"root.a", "root.b"}, ShieldSince: map[string]time.Time{"root.a": now.Add(-90 * time.Second), "root.b": now.Add(-10 * time.Minute)}}
	})
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMetrics(reg, board)
	if err != nil {
		t.Fatal(err)
	}
	want := `
# HELP yarn_sidecar_preemption_shield_age_seconds How long each preemption shield has been held, from the cycle or audit record that set it.
# TYPE yarn_sidecar_preemption_shield_age_seconds gauge
yarn_sidecar_preemption_shield_age_seconds{queue="root.a"} 90
yarn_sidecar_preemption_shield_age_seconds{queue="root.b"} 600
# HELP yarn_sidecar_preemption_shields Queues whose disable_preemption=true this sidecar set and YARN holds (the preemption shield; it covers every partition of the queue).
# TYPE yarn_sidecar_preemption_shields gauge
yarn_sidecar_preemption_shields 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "yarn_sidecar_preemption_shields", "yarn_sidecar_preemption_shield_age_seconds"); err != nil {
		t.Error(err)
	}
	problems, err := testutil.CollectAndLint(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}
