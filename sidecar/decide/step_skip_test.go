package decide

import (
	"slices"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// withoutSkipped removes exactly the named steps, keeps the order of the
// rest, and refuses a name no step has.
func TestWithoutSkipped(t *testing.T) {
	all := (&PSDecider{}).steps(nil)
	names := func(steps []decideStep) []string {
		var ns []string
		for _, st := range steps {
			ns = append(ns, st.Name())
		}
		return ns
	}
	for _, tc := range []struct {
		name    string
		skip    map[string]bool
		without []string // names expected gone
		err     string
	}{
		{"nothing skipped", nil, nil, ""},
		{"one step", map[string]bool{"route gain": true}, []string{"route gain"}, ""},
		{"two steps", map[string]bool{"goal route": true, "restores": true}, []string{"goal route", "restores"}, ""},
		{"an unknown name", map[string]bool{"route gain": true, "routegain": true}, nil, `no decide step named "routegain"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withoutSkipped(all, tc.skip)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := slices.DeleteFunc(names(all), func(n string) bool { return slices.Contains(tc.without, n) })
			if !slices.Equal(names(got), want) {
				t.Errorf("steps %v, want %v", names(got), want)
			}
		})
	}
}

// An unknown name fails the decision itself, so an ablation run never
// goes on with the full pipeline under the ablated step's name.
func TestDecideRefusesUnknownSkip(t *testing.T) {
	d := &PSDecider{SkipSteps: map[string]bool{"no such step": true}}
	_, err := d.Decide(snapWith(2, map[string]int64{"root.a": 1}), schedconf.Conf{pre + "root.queues": "a", pre + "root.a.capacity": "100"})
	if err == nil || !strings.Contains(err.Error(), `"no such step"`) {
		t.Fatalf("err = %v, want one naming the unknown step", err)
	}
}
