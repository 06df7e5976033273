package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
)

// The status says when the node listing was read: this cycle, or reused
// from an earlier read (and how long before); JSON carries the time.
func TestStatusNodesReadAt(t *testing.T) {
	st := sampleStatus()
	cases := []struct {
		name    string
		readAt  time.Time
		line    string
		present bool
	}{
		{"not known", time.Time{}, "", false},
		{"read this cycle", st.Time, "nodes: listing read this cycle", true},
		{"reused", st.Time.Add(-90 * time.Second), "nodes: listing read at 23:59:00Z (1m30s before the cycle, reused", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := st
			s.NodesReadAt, s.NodesReused = tc.readAt, tc.readAt.Before(st.Time) && !tc.readAt.IsZero()
			var buf bytes.Buffer
			if err := WriteStatus(&buf, s); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(buf.String(), "nodes: listing"); got != tc.present || (tc.present && !strings.Contains(buf.String(), tc.line)) {
				t.Errorf("status text:\n%s\nwant line %q (present %v)", buf.String(), tc.line, tc.present)
			}
			buf.Reset()
			if err := WriteStatusJSON(&buf, s); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Header struct {
					NodesReadAt *time.Time `json:"nodesReadAt"`
				} `json:"header"`
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if (doc.Header.NodesReadAt != nil) != tc.present || (tc.present && !doc.Header.NodesReadAt.Equal(tc.readAt)) {
				t.Errorf("JSON nodesReadAt %v, want %v", doc.Header.NodesReadAt, tc.readAt)
			}
		})
	}
}

// A label layout that did not land says why in the header's warnings, for
// as long as it is the last attempt; an applied one says nothing.
func TestStatusLabelAttemptWarning(t *testing.T) {
	at := time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		attempt *sidecar.LayoutAttempt
		want    string
	}{
		{"none", nil, ""},
		{"applied", &sidecar.LayoutAttempt{Time: at, Result: act.ResultApplied}, ""},
		{"rolled back", &sidecar.LayoutAttempt{Time: at, Result: act.ResultRolledBack, Error: "read-back after apply differs"},
			"node-label layout rolled-back at 2026-11-27T22:00:00Z, not retried before labels.min_interval: read-back after apply differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := sampleStatus()
			st.Labels = &sidecar.LayoutReport{LastAttempt: tc.attempt}
			var got string
			for _, w := range HeaderOf(st).Warnings {
				if strings.Contains(w, "node-label layout") {
					got = w
				}
			}
			if got != tc.want {
				t.Errorf("warning %q, want %q", got, tc.want)
			}
		})
	}
}
