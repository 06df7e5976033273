package sidecar

import "testing"

func TestDefaultStateDir(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		euid int
		home string
		want string
	}{
		{"systemd StateDirectory", map[string]string{"STATE_DIRECTORY": "/var/lib/yarn-sidecar:/var/lib/other", "XDG_STATE_HOME": "/x"}, 0, "/root", "/var/lib/yarn-sidecar"},
		{"root without systemd", nil, 0, "/root", "/var/lib/yarn-sidecar"},
		{"user with XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/home/ann/state"}, 1000, "/home/ann", "/home/ann/state/yarn-sidecar"},
		{"user, relative XDG_STATE_HOME ignored", map[string]string{"XDG_STATE_HOME": "state"}, 1000, "/home/ann", "/home/ann/.local/state/yarn-sidecar"},
		{"user default", nil, 1000, "/home/ann", "/home/ann/.local/state/yarn-sidecar"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DefaultStateDir(func(k string) string { return tc.env[k] }, tc.euid, tc.home)
			if err != nil || got != tc.want {
				t.Errorf("DefaultStateDir = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := DefaultStateDir(func(string) string { return "" }, 1000, ""); err == nil {
		t.Error("no home, no XDG_STATE_HOME: want an error naming state_dir")
	}
}

// Relative store and audit-log paths resolve against the state directory,
// never the working directory; absolute ones stay.
func TestResolveState(t *testing.T) {
	cfg, err := ParseConfig([]byte("audit_log: /var/log/yarn-sidecar/audit.jsonl\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := func(k string) string { return map[string]string{"XDG_STATE_HOME": "/home/ann/.st"}[k] }
	if err := cfg.ResolveState(env, 1000, "/home/ann"); err != nil {
		t.Fatal(err)
	}
	if cfg.StateDir != "/home/ann/.st/yarn-sidecar" || cfg.Store != "/home/ann/.st/yarn-sidecar/yarn-sidecar.db" ||
		cfg.AuditLog != "/var/log/yarn-sidecar/audit.jsonl" || cfg.FirstSeenPath() != "/home/ann/.st/yarn-sidecar/yarn-sidecar.db.first-seen.json" {
		t.Errorf("resolved state = %q, store %q, audit %q", cfg.StateDir, cfg.Store, cfg.AuditLog)
	}
	if _, err := ParseConfig([]byte("state_dir: state\n")); err == nil {
		t.Error("a relative state_dir was accepted")
	}
}
