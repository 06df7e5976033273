package sidecar

import (
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// probeCluster is replayCluster with ml's gpu rate never measured, the
// gpu partition idle and ml's demand given in slots of 1 GB.
func probeCluster(t *testing.T, mlDemand int64, live schedconf.Conf) (*decideState, []calibrate.JobRecord) {
	t.Helper()
	s, recs := replayCluster(t, 0, false)
	s.Rates.(progress.RateMap)["etl"]["gpu"] = 1 // only ml is unmeasured there
	if live != nil {
		tree, err := schedconf.ParseTree(live)
		if err != nil {
			t.Fatal(err)
		}
		s.Live, s.Tree = live, tree
	}
	s.Slot = cluster.Resource{MemoryMB: 1024, VCores: 1}
	s.Snap.Partitions = []cluster.Partition{
		{Name: "", Total: cluster.Resource{MemoryMB: 8 * 1024}},
		{Name: "gpu", Total: cluster.Resource{MemoryMB: 60 * 1024}},
	}
	s.Parts[1].Slots["gpu"] = 60
	s.Snap.Queues = []cluster.Queue{{Path: "root.ml", Name: "ml", Leaf: true,
		ByPartition: map[string]cluster.QueueCapacity{"": {Used: cluster.Resource{MemoryMB: mlDemand * 1024}}}}}
	return s, recs
}

func runProbe(t *testing.T, s *decideState, recs []calibrate.JobRecord, p *replayProbe) {
	t.Helper()
	held := &replayChoice{}
	if err := (replayPlanStep{Jobs: func() []calibrate.JobRecord { return recs }, Held: held}).Run(s); err != nil {
		t.Fatal(err)
	}
	if err := (replayProbeStep{Jobs: func() []calibrate.JobRecord { return recs }, CalibrationMax: 16, Probe: p, Held: held}).Run(s); err != nil {
		t.Fatal(err)
	}
}

func TestReplayProbeStep(t *testing.T) {
	cases := []struct {
		name      string
		demand    int64
		wantProbe bool
	}{
		{"ml nearly idle, gpu idle, ml never measured there: probed", 4, true},
		{"ml with more demand than the bound: not probed", 40, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, recs := probeCluster(t, c.demand, nil)
			p := &replayProbe{}
			runProbe(t, s, recs, p)
			ml := s.Targets["root.ml"]
			probed := ml.DefaultLabelExpression != nil && *ml.DefaultLabelExpression == "gpu"
			if probed != c.wantProbe {
				t.Fatalf("ml probed in gpu: %v, want %v; notes %v", probed, c.wantProbe, s.Notes)
			}
			if !c.wantProbe {
				return
			}
			// 16 containers of 60 gpu slots under a root that has all of
			// gpu: a ceiling of 26.66% of the parent.
			if got := ml.MaxCapacity["gpu"]; got != 26.66 {
				t.Errorf("ml's gpu maximum-capacity %v, want 26.66 (16 of 60 slots)", got)
			}
			if len(s.Calibrations) != 1 || s.Calibrations[0].Containers != 16 || s.Calibrations[0].Queue != "root.ml" {
				t.Errorf("exposure %+v, want root.ml's 16 containers", s.Calibrations)
			}
		})
	}
}

// The probe ends after its time: ml goes home with its ceiling back in
// the same plan (a give-back the rate limit lets through), is not probed
// again within the window, and the replay is brought forward.
func TestReplayProbeStepEnds(t *testing.T) {
	s, recs := probeCluster(t, 4, nil)
	seen, err := (&FirstSeen{}).Observe(s.Tree) // the admin's: ml at home
	if err != nil {
		t.Fatal(err)
	}
	p := &replayProbe{}
	runProbe(t, s, recs, p)
	if p.Leaf != "root.ml" {
		t.Fatalf("no probe started: %v", s.Notes)
	}
	// Live: ml in gpu with the capped ceiling, from this cycle on.
	live := s.Live.Clone()
	live["yarn.scheduler.capacity.root.ml.default-node-label-expression"] = "gpu"
	live["yarn.scheduler.capacity.root.ml.accessible-node-labels.gpu.maximum-capacity"] = "26.66"
	s2, _ := probeCluster(t, 4, live)
	s2.Snap.Time = s.Snap.Time.Add(time.Minute)
	runProbe(t, s2, recs, p)
	if ml := s2.Targets["root.ml"]; ml.DefaultLabelExpression == nil || *ml.DefaultLabelExpression != "gpu" {
		t.Fatalf("a minute in: ml %+v, want still probed", ml)
	}
	s3, _ := probeCluster(t, 4, live)
	s3.Snap.Time = s.Snap.Time.Add(7 * time.Minute)
	held := &replayChoice{at: s.Snap.Time}
	if err := (replayPlanStep{Jobs: func() []calibrate.JobRecord { return recs }, Held: held, Seen: seen}).Run(s3); err != nil {
		t.Fatal(err)
	}
	if err := (replayProbeStep{Jobs: func() []calibrate.JobRecord { return recs }, CalibrationMax: 16, Probe: p, Held: held, Seen: seen}).Run(s3); err != nil {
		t.Fatal(err)
	}
	ml := s3.Targets["root.ml"]
	if ml.DefaultLabelExpression == nil || *ml.DefaultLabelExpression != "" {
		t.Errorf("after the probe: ml's home %v, want back to the default partition", ml.DefaultLabelExpression)
	}
	if ml.MaxCapacity["gpu"] != 100 {
		t.Errorf("after the probe: ml's gpu ceiling %v, want the admin's 100 back", ml.MaxCapacity["gpu"])
	}
	if _, ok := s3.Restores["root.ml"]; !ok {
		t.Errorf("after the probe: ml not listed as a give-back: %v", s3.Restores)
	}
	if p.Leaf != "" || p.Done[[2]string{"root.ml", "gpu"}].IsZero() {
		t.Errorf("probe state %+v, want over and done", p)
	}
	if !held.at.Before(s.Snap.Time) {
		t.Errorf("the replay's next run not brought forward: held at %v", held.at)
	}
	if !strings.Contains(strings.Join(s3.Notes, " "), "probe of root.ml in gpu over") {
		t.Errorf("notes %v", s3.Notes)
	}
}
