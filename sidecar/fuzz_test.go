package sidecar

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
)

// FuzzParseConfig: the sidecar config YAML (the shipped examples are the
// seeds) gives a valid config or an error, never a panic; what parses
// passes Validate (ParseConfig promises a validated config).
func FuzzParseConfig(f *testing.F) {
	for _, p := range []string{"../configs/sidecar.example.yaml", "../configs/sidecar.compose.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("mode: apply\nrm: [http://rm:8088]\ninterval: 30s\n"))
	f.Add([]byte("a: &a [*a, *a]\nb: [*a, *a, *a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ParseConfig returned a config that does not validate: %v", err)
		}
	})
}

// FuzzReadAudit: an audit log (read back by `report` and by the restart
// reconciliation) gives entries or an error naming the line.
func FuzzReadAudit(f *testing.F) {
	f.Add([]byte(`{"time":"2026-01-01T00:00:00Z","cycle":1,"mode":"apply","versionBefore":3,"versionAfter":4,"before":{"k":"1"},"after":{"k":"2"},"result":"applied"}` + "\n"))
	f.Add([]byte(`{"time":"2026-01-01T00:00:00Z","cycle":2,"mode":"apply","result":"failed","error":"x"}` + "\n{\"time\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := act.ReadAudit(bytes.NewReader(data))
		if err != nil && !strings.Contains(err.Error(), "line") {
			t.Fatalf("error does not name the line: %v", err)
		}
		if len(entries) > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d entries from %d lines", len(entries), bytes.Count(data, []byte("\n"))+1)
		}
	})
}
