package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
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
