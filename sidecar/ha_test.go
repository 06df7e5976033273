package sidecar

import (
	"strings"
	"testing"
	"time"
)

func TestHAConfig(t *testing.T) {
	cases := []struct {
		yaml, wantErr string
	}{
		{"ha:\n  zookeeper: [127.0.0.1:2181]\n", ""},
		{"ha:\n  path: /x\n", "ha.zookeeper"},
		{"ha:\n  zookeeper: [z:2181]\n  path: relative\n", "ha.path"},
		{"ha:\n  zookeeper: [z:2181]\n  session_timeout: -1s\n", "ha.session_timeout"},
	}
	for _, tc := range cases {
		c, err := ParseConfig([]byte(tc.yaml))
		if tc.wantErr == "" {
			if err != nil {
				t.Fatalf("%q: %v", tc.yaml, err)
			}
			c.HA.Defaults(c.Interval)
			if c.HA.Path != "/yarn-sidecar/leader" || c.HA.SessionTimeout != c.Interval || c.Interval < time.Second {
				t.Fatalf("defaults: %+v (interval %v)", c.HA, c.Interval)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Fatalf("%q: error %v, want one naming %s", tc.yaml, err, tc.wantErr)
		}
	}
}
