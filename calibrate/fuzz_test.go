package calibrate

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzImport: `calibrate import` reads JSON lines from an admin's file; any
// bytes add samples or fail with an error naming the line, and never leave
// the history unreadable.
func FuzzImport(f *testing.F) {
	f.Add([]byte(`{"attempt":"attempt_1_0001_m_000000_0","job":"job_1_0001","class":"sort","nodeType":"gpu","finish":"2026-01-01T00:00:00Z","elapsed":1000000000,"bytes":134217728}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte(`{"attempt":1}`))
	dir := f.TempDir()
	s, err := Open(filepath.Join(dir, "history.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		before, err := s.Count()
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Import(bytes.NewReader(data))
		if err != nil {
			if !strings.Contains(err.Error(), "line") && !strings.Contains(err.Error(), "attempt") {
				t.Fatalf("error names neither the line nor the attempt: %v", err)
			}
		}
		after, err := s.Count()
		if err != nil {
			t.Fatal(err)
		}
		if after != before+n {
			t.Fatalf("import said %d new, count went %d → %d", n, before, after)
		}
		if _, err := s.All(); err != nil {
			t.Fatalf("history unreadable after import: %v", err)
		}
	})
}
