package main

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// An admin's first question: which build is this? --version prints one
// line, `version` the long form, -o json one document.
func TestVersion(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--version"}, []string{"yarn-sidecar ", "commit ", runtime.Version(), "Hadoop 3.3.6, 3.4.1"}},
		{[]string{"version"}, []string{"yarn-sidecar ", "commit:", "go:      " + runtime.Version(), "3.3.6 (recorded from a real cluster)", "3.4.1 (from the Apache documentation"}},
		{[]string{"version", "-o", "json"}, []string{`"version":`, `"revision":`, `"goVersion":"` + runtime.Version(), `"3.3.6"`}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, _, err := runCLI(t, ctx, tc.args...)
			if err != nil {
				t.Fatalf("%v: %v", tc.args, err)
			}
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
	out, _, _ := runCLI(t, ctx, "version", "-o", "json")
	if _, err := decodeOne(out); err != nil {
		t.Error(err)
	}
}
