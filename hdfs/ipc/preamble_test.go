package ipc_test

import (
	"bytes"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
)

// TestReadPreamble: the connection header and handshake a client sends,
// accepted or refused as Hadoop's ipc.Server refuses them.
func TestReadPreamble(t *testing.T) {
	h, err := ipc.NewHeaders()
	if err != nil {
		t.Fatal(err)
	}
	preamble := func(version, auth byte) []byte {
		buf := append([]byte(ipc.Magic), version, 0, auth)
		buf, err := ipc.AppendPacket(buf, h.NewRequestHeader(ipc.HandshakeCallID, make([]byte, 16)),
			h.NewConnectionContextFor(ipc.RMAdmin, "alice"))
		if err != nil {
			t.Fatal(err)
		}
		return buf
	}
	cases := []struct {
		name       string
		in         []byte
		ok         bool
		fatalClass string
	}{
		{"simple auth, this version", preamble(ipc.Version, ipc.AuthNone), true, ""},
		{"another version", preamble(ipc.Version-1, ipc.AuthNone), false, "org.apache.hadoop.ipc.RPC$VersionMismatch"},
		{"SASL", preamble(ipc.Version, 0xDF), false, "org.apache.hadoop.security.AccessControlException"},
		{"cut short", preamble(ipc.Version, ipc.AuthNone)[:10], false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var class, msg string
			user, protocol, ok := ipc.ReadPreamble(bytes.NewReader(tc.in), h, "test endpoint", func(c, m string) { class, msg = c, m })
			if ok != tc.ok || class != tc.fatalClass {
				t.Fatalf("ok %v, fatal %q %q; want ok %v, fatal %q", ok, class, msg, tc.ok, tc.fatalClass)
			}
			if ok && (user != "alice" || protocol != ipc.RMAdmin.Name) {
				t.Errorf("user %q protocol %q, want alice %q", user, protocol, ipc.RMAdmin.Name)
			}
		})
	}
}
