package replay

import (
	"math"
	"testing"
	"time"
)

func TestOtherDays(t *testing.T) {
	jobs := []Job{
		{Queue: "a", Class: "x", Submit: 10 * time.Minute},
		{Queue: "a", Class: "x", Submit: 12 * time.Minute},
		{Queue: "a", Class: "x", Submit: 14 * time.Minute},
		{Queue: "b", Class: "y", Submit: time.Minute},
		{Queue: "b", Class: "y", Submit: 5 * time.Hour},
		{Queue: "c", Class: "z", Submit: 0},
	}
	cases := []struct {
		name string
		job  int
		max  time.Duration // how far its arrival may move
	}{
		{"a stream's job moves by up to its mean gap", 1, 2 * time.Minute},
		{"a sparse stream's by up to MaxShift", 4, MaxShift},
		{"never before the window's start", 3, MaxShift},
		{"a lone job by up to MaxShift", 5, MaxShift},
	}
	days := OtherDays(jobs, 50, 7)
	if len(days) != 50 {
		t.Fatalf("%d days, want 50", len(days))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			moved := false
			for _, d := range days {
				got := d[c.job].Submit
				if got < 0 || absDur(got-jobs[c.job].Submit) > c.max {
					t.Fatalf("submit %s moved to %s, more than %s", jobs[c.job].Submit, got, c.max)
				}
				if got != jobs[c.job].Submit {
					moved = true
				}
				if d[c.job].Queue != jobs[c.job].Queue || d[c.job].Class != jobs[c.job].Class {
					t.Fatalf("the job's queue or class changed")
				}
			}
			if !moved {
				t.Fatalf("never moved in 50 days")
			}
		})
	}
	if jobs[1].Submit != 12*time.Minute {
		t.Fatalf("the input was changed")
	}
	again := OtherDays(jobs, 50, 7)
	for k := range days {
		for i := range days[k] {
			if days[k][i] != again[k][i] {
				t.Fatalf("day %d job %d differs for the same seed", k, i)
			}
		}
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func TestPooled(t *testing.T) {
	a := Result{ByClass: map[string][]float64{"x": {10, 20}, "y": {5}}}
	b := Result{ByClass: map[string][]float64{"x": {30}}}
	p := Pooled(a, b)
	if got := p.Mean("x"); math.Abs(got-20) > 1e-9 {
		t.Fatalf("x mean %v, want 20", got)
	}
	if got := p.Mean("y"); math.Abs(got-5) > 1e-9 {
		t.Fatalf("y mean %v, want 5", got)
	}
	if got := p.MeanAll(); math.Abs(got-65.0/4) > 1e-9 {
		t.Fatalf("mean of all %v, want %v", got, 65.0/4)
	}
}
