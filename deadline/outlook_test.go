package deadline

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// An app with an Outlook (a Spark app's stages) is judged by it: P50 is
// its median, P(meet) its lognormal's at the deadline, the verdict "on
// track" at the confidence and "at risk" below; without a basis it says
// so; without a goal it keeps P50 and says "no goal".
func TestReportJudgesOutlooks(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	app := func(id, deadline string) cluster.App {
		a := cluster.App{ID: id, Name: id, Queue: "root.q", Type: "SPARK", State: cluster.AppRunning, Progress: 10,
			StartedTime: now.Add(-10 * time.Minute), RunningContainers: 5}
		if deadline != "" {
			a.Tags = []string{"deadline=" + deadline}
		}
		return a
	}
	snap := cluster.Snapshot{Time: now, Apps: []cluster.App{app("easy", "+1h"), app("tight", "+31m"), app("late", "+20m"),
		app("blind", "+1h"), app("free", "")}}
	ol := Outlook{Remain: 20 * time.Minute, LogSpread: 0.1, Tasks: 40, Known: true, Method: "spark-stages"}
	outlooks := map[string]Outlook{"easy": ol, "tight": ol, "late": ol, "blind": {Tasks: 40, Method: "spark-stages"}, "free": ol}
	cases := []struct {
		app, verdict string
		pLo, pHi     float64 // P(meet) bounds; -1: none
	}{
		{"easy", OnTrack, 0.99, 1},
		{"tight", AtRisk, 0.6, 0.75}, // deadline=+31m from the start 10m ago: Φ(ln(21/20)/0.1) = Φ(0.49) = 0.69
		{"late", AtRisk, 0, 0.01},
		{"blind", "unknown (no task times for its stages yet)", -1, -1},
		{"free", NoGoal, -1, -1},
	}
	got := map[string]JobReport{}
	for _, q := range Report(snap, nil, ReportOptions{Outlooks: outlooks}) {
		for _, j := range q.Jobs {
			got[j.AppID] = j
		}
	}
	for _, c := range cases {
		j, ok := got[c.app]
		if !ok {
			t.Fatalf("%s missing from the report", c.app)
		}
		if j.Verdict != c.verdict || j.Method != "spark-stages" || j.Remaining != 40 {
			t.Errorf("%s: verdict %q method %q tasks %d, want %q spark-stages 40", c.app, j.Verdict, j.Method, j.Remaining, c.verdict)
		}
		if wantNeed := map[bool]int{true: 4}[c.pLo >= 0]; j.Needed != wantNeed || j.NeededIsHeld != (wantNeed > 0) {
			t.Errorf("%s: needs %d containers, want %d (the 4 it holds, with a P(meet))", c.app, j.Needed, wantNeed)
		}
		if c.pLo < 0 {
			if j.PMeet != nil {
				t.Errorf("%s: P(meet) %v, want none", c.app, *j.PMeet)
			}
		} else if j.PMeet == nil || *j.PMeet < c.pLo || *j.PMeet > c.pHi {
			t.Errorf("%s: P(meet) %v, want in [%v, %v]", c.app, pOf(j.PMeet), c.pLo, c.pHi)
		}
		if c.app != "blind" {
			if d := j.P50.Sub(now); d != 20*time.Minute {
				t.Errorf("%s: P50 in %v, want 20m", c.app, d)
			}
			if d := j.P90.Sub(now).Minutes(); math.Abs(d-20*math.Exp(0.1*1.2816)) > 0.3 {
				t.Errorf("%s: P90 in %.1fm, want ≈%.1fm", c.app, d, 20*math.Exp(0.1*1.2816))
			}
		}
	}
}

func pOf(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}
