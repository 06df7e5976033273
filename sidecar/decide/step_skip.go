package decide

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// withoutSkipped drops the steps named in skip (matched against Name())
// from the decision: the step ablation of issue 32 ("keep a step only if
// removing it costs a held-out figure"), for experiments only. The admin's
// config cannot set it; experiment.SidecarOptions.SkipSteps does. A name
// that matches no step is an error, so a misspelt ablation never runs the
// full pipeline under the ablated step's name.
func withoutSkipped(steps []decideStep, skip map[string]bool) ([]decideStep, error) {
	if len(skip) == 0 {
		return steps, nil
	}
	known := map[string]bool{}
	var names []string
	var kept []decideStep
	for _, st := range steps {
		known[st.Name()] = true
		names = append(names, st.Name())
		if !skip[st.Name()] {
			kept = append(kept, st)
		}
	}
	var unknown []string
	for name := range skip {
		if !known[name] {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("skip steps: no decide step named %s (steps: %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	return kept, nil
}

// StepNames are the decision's steps, as Name() gives them (what SkipSteps
// matches), sorted: each step has exactly one contract and each contract
// names a step (TestStepContracts), so no decider is built to list them.
func StepNames() []string {
	return slices.Sorted(maps.Keys(stepContracts))
}
