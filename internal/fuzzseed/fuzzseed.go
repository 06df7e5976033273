// Package fuzzseed feeds recorded files to Go fuzz targets as seeds, so
// `go test` replays them (and every crash kept under testdata/fuzz) and
// `go test -fuzz` starts from real answers rather than from nothing.
package fuzzseed

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// MaxSeed skips files above this size: big seeds slow every fuzz iteration
// without teaching the mutator anything a small one does not.
const MaxSeed = 128 << 10

// Files returns the contents of the files matching the glob patterns
// (relative to the test's package directory), sorted by name. A pattern
// that matches nothing fails the test: a renamed seed directory must not
// quietly leave a target without seeds.
func Files(f *testing.F, patterns ...string) [][]byte {
	f.Helper()
	var names []string
	for _, p := range patterns {
		m, err := filepath.Glob(p)
		if err != nil {
			f.Fatalf("seed pattern %q: %v", p, err)
		}
		if len(m) == 0 {
			f.Fatalf("seed pattern %q matches no file", p)
		}
		names = append(names, m...)
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		st, err := os.Stat(n)
		if err != nil || st.IsDir() || st.Size() > MaxSeed {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatalf("seed %s: %v", n, err)
		}
		out = append(out, b)
	}
	return out
}
