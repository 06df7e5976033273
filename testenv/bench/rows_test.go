package main

import (
	"strings"
	"testing"
)

// `make bench` prints what ships, at most issue 32's 150 rows: the sum of
// the areas' declared default rows (Bench.Rows, which checkRows holds to
// what a default run prints).
func TestDefaultRows(t *testing.T) {
	total := 0
	for _, b := range benches {
		if b.Rows <= 0 {
			t.Errorf("area %s declares %d default rows", b.Area, b.Rows)
		}
		total += b.Rows
	}
	if total > maxDefaultRows {
		t.Errorf("make bench prints %d default rows, more than %d", total, maxDefaultRows)
	}
	var b strings.Builder
	listRows(&b, "")
	if !strings.Contains(b.String(), "total") {
		t.Errorf("-list printed no total:\n%s", b.String())
	}
}

// Without -candidates the Detail rows are dropped; with it every row
// prints.
func TestShown(t *testing.T) {
	rows := []Row{{Name: "goal"}, {Name: "candidate", Detail: true}, {Name: "another goal"}}
	for _, tc := range []struct {
		candidates bool
		want       []string
	}{
		{false, []string{"goal", "another goal"}},
		{true, []string{"goal", "candidate", "another goal"}},
	} {
		var got []string
		for _, r := range shown(rows, tc.candidates) {
			got = append(got, r.Name)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("candidates=%v: %v, want %v", tc.candidates, got, tc.want)
		}
	}
}

// A default run that prints other than the declared count says so in the
// table; runs that print a part (-rows, -quick), more (-candidates,
// -heldout-ablate) or skip a scenario are not checked.
func TestCheckRows(t *testing.T) {
	b := Bench{Area: "x", Rows: 2}
	two := []Row{{Name: "a"}, {Name: "b"}}
	three := append(two, Row{Name: "c"})
	for _, tc := range []struct {
		name string
		rows []Row
		o    Options
		ok   bool
	}{
		{"as declared", two, Options{}, true},
		{"one more", three, Options{}, false},
		{"one fewer", two[:1], Options{}, false},
		{"-rows", three, Options{Rows: "shift"}, true},
		{"-quick", three, Options{Quick: true}, true},
		{"-candidates", three, Options{Candidates: true}, true},
		{"-heldout-ablate", three, Options{HeldOutAblate: "restores"}, true},
		{"a skipped scenario", []Row{{Name: "fb-2009", Figure: "skipped: trace missing"}}, Options{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad, ok := checkRows(b, tc.rows, tc.o)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tc.ok, bad)
			}
			if !ok && !strings.Contains(bad.Figure, "declares 2") {
				t.Errorf("row %q does not name the declared count", bad.Figure)
			}
		})
	}
}
