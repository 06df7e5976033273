package main

import (
	"slices"
	"strings"
	"testing"
)

// -heldout-ablate takes the decide steps' own names, each once; a name
// no step has is refused before anything runs.
func TestAblateNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"route gain", []string{"route gain"}, ""},
		{"route gain, goal route,restores", []string{"route gain", "goal route", "restores"}, ""},
		{"route-gain", nil, `no decide step named "route-gain"`},
		{"restores,restores", nil, "named twice"},
		{"restores,", nil, "empty step name"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ablateNames(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ablateNames(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}
