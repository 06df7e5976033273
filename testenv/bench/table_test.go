package main

import (
	"bytes"
	"testing"
)

// writeTable prints one Markdown row per bench row, cells unpadded, with
// a '|' inside a cell escaped and a newline folded into a space.
func TestWriteTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []Row
		want string
	}{
		{"header only", nil,
			"| area | measure | figure | baseline (same run) | ratio | goal |\n|---|---|---|---|---|---|\n"},
		{"a row with empty cells", []Row{{Area: "scale", Name: "one snapshot", Figure: "593ms"}},
			"| area | measure | figure | baseline (same run) | ratio | goal |\n|---|---|---|---|---|---|\n| scale | one snapshot | 593ms |  |  |  |\n"},
		{"a pipe and a newline inside cells", []Row{{Area: "deadline", Name: "median |error|", Figure: "4.7%", Baseline: "a\nb", Ratio: "1×", Goal: "≤5%"}},
			"| area | measure | figure | baseline (same run) | ratio | goal |\n|---|---|---|---|---|---|\n| deadline | median \\|error\\| | 4.7% | a b | 1× | ≤5% |\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeTable(&b, tc.rows)
			if b.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tc.want)
			}
		})
	}
}
