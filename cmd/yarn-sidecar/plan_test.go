package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// plan -v adds the step that set each value and the admin's value;
// without -v the table is as it was.
func TestPrintPlanVerboseSetBy(t *testing.T) {
	admin := "45"
	rep := sidecar.CycleReport{Plan: &plan.Plan{Time: time.Unix(1_700_000_000, 0), Changes: []plan.Change{
		{Queue: "root.etl", Property: "capacity", From: "50", To: "40", SetBy: "do no harm", Admin: &admin},
		{Queue: "root.ml", Partition: "gpu", Property: "default-node-label-expression", From: "", To: "gpu", SetBy: "PS plan"},
	}}}
	cases := []struct {
		verbose bool
		want    []string
		not     []string
	}{
		{true, []string{"SET BY", "do no harm", "PS plan", "ADMIN'S", "45"}, nil},
		{false, []string{"QUEUE", "root.etl"}, []string{"SET BY", "do no harm", "ADMIN'S"}},
	}
	for _, tc := range cases {
		var b bytes.Buffer
		printPlan(&b, rep, nil, tc.verbose)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("verbose %v: output lacks %q:\n%s", tc.verbose, w, b.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("verbose %v: output has %q:\n%s", tc.verbose, w, b.String())
			}
		}
	}
}
