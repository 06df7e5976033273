package calibrate

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestFamilies(t *testing.T) {
	// Two stages of app class "etl": both 2x on "new" against "old";
	// the first also ran on "gpu" at 1x. A plain class without a family
	// and a class whose family has its own row are left alone.
	var ss []Sample
	add := func(class, typ string, n int, sec float64) {
		for i := 0; i < n; i++ {
			ss = append(ss, Sample{AttemptID: fmt.Sprintf("%s-%s-%d", class, typ, i), JobID: "app1", Class: class, NodeType: typ,
				Finish: time.Unix(int64(i), 0), Elapsed: time.Duration(sec * float64(time.Second)), Type: "MAP"})
		}
	}
	add("etl/scan at A.scala:1", "old", 10, 20)
	add("etl/scan at A.scala:1", "new", 10, 10)
	add("etl/scan at A.scala:1", "gpu", 4, 20)
	add("etl/agg at A.scala:9", "old", 6, 4)
	add("etl/agg at A.scala:9", "new", 6, 2)
	add("sort", "old", 5, 30)
	add("sort/x", "old", 5, 30)
	add("sort/x", "new", 5, 15)
	tb := Estimate(ss, Options{})
	cases := []struct {
		class, typ string
		want       float64
		known      bool
	}{
		{"etl", "old", 1, true}, // ratios against old's
		{"etl", "new", 2, true},
		{"etl", "gpu", 1, true},
		{"sort", "new", 0, false}, // sort has its own row: no family row
	}
	old, _ := tb.Rate("etl", "old")
	for _, c := range cases {
		r, _ := tb.Rate(c.class, c.typ)
		if r.Known != c.known || c.known && math.Abs(r.Ratio/old.Ratio-c.want) > 1e-9 {
			t.Errorf("%s on %s: %+v, want ratio %v known %v", c.class, c.typ, r, c.want, c.known)
		}
	}
	if ref := tb.Reference("etl"); ref != "old" && ref != "new" {
		t.Errorf("etl reference %q", ref)
	}
}

func TestFamilyReferenceIsANodeType(t *testing.T) {
	// Most of ml's samples ran on GPU executors (gpu/gpu, 3x); its
	// reference is still a node type, so an unmeasured type taken as 1
	// is a CPU executor's speed, not a GPU's.
	var ss []Sample
	add := func(class, typ string, n int, sec float64) {
		for i := 0; i < n; i++ {
			ss = append(ss, Sample{AttemptID: fmt.Sprintf("%s-%s-%d", class, typ, i), JobID: "app1", Class: class, NodeType: typ,
				Finish: time.Unix(int64(i), 0), Elapsed: time.Duration(sec * float64(time.Second)), Type: "MAP"})
		}
	}
	add("ml/load", "gpu/gpu", 40, 10)
	add("ml/load", "cpu-old", 10, 30)
	add("ml/load", "gpu", 5, 30)
	tb := Estimate(ss, Options{})
	if ref := tb.Reference("ml"); ref != "cpu-old" {
		t.Fatalf("ml reference %q, want cpu-old (the node type with the most samples)", ref)
	}
	if r, _ := tb.Rate("ml", "gpu/gpu"); math.Abs(r.Ratio-3) > 1e-9 {
		t.Errorf("ml on gpu/gpu %v, want 3", r.Ratio)
	}
	if !IsGPUExecutorType("gpu/gpu") || IsGPUExecutorType("gpu") {
		t.Error("IsGPUExecutorType")
	}
}
