package calibrate

import (
	"math"
	"path/filepath"
	"testing"
	"time"
)

// Predictions opened while jobs run become residuals when they finish:
// the first prediction per stage counts, failed jobs are dropped, each
// class and stage keeps its newest, and everything survives a reopen.
func TestPredictionsBecomeResiduals(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	tests := []struct {
		name   string
		open   map[string][]Prediction
		close  []Finished
		keep   int
		want   map[string]float64 // app/stage → ratio of the new residuals
		stored int                // residuals in the store afterwards
	}{
		{
			name:  "ratio is actual remaining over predicted",
			open:  map[string][]Prediction{"app1": {{Class: "etl", Stage: 20, At: at(100), Remain: 100}, {Class: "etl", Stage: 50, At: at(200), Remain: 50}}},
			close: []Finished{{AppID: "app1", Finish: at(300), Succeeded: true}},
			keep:  10, want: map[string]float64{"app1/20": 2, "app1/50": 2}, stored: 2,
		},
		{
			name:  "the first prediction of a stage is kept",
			open:  map[string][]Prediction{"app1": {{Class: "etl", Stage: 20, At: at(100), Remain: 100}, {Class: "etl", Stage: 20, At: at(150), Remain: 10}}},
			close: []Finished{{AppID: "app1", Finish: at(200), Succeeded: true}},
			keep:  10, want: map[string]float64{"app1/20": 1}, stored: 1,
		},
		{
			name:  "a failed job is not scored",
			open:  map[string][]Prediction{"app1": {{Class: "etl", Stage: 20, At: at(100), Remain: 100}}},
			close: []Finished{{AppID: "app1", Finish: at(300)}},
			keep:  10, want: map[string]float64{}, stored: 0,
		},
		{
			name:  "a job never predicted leaves nothing",
			close: []Finished{{AppID: "app9", Finish: at(300), Succeeded: true}},
			keep:  10, want: map[string]float64{}, stored: 0,
		},
		{
			name: "keep bounds each class and stage, newest kept",
			open: map[string][]Prediction{
				"app1": {{Class: "etl", Stage: 20, At: at(0), Remain: 100}},
				"app2": {{Class: "etl", Stage: 20, At: at(0), Remain: 100}},
				"app3": {{Class: "etl", Stage: 20, At: at(0), Remain: 100}},
				"app4": {{Class: "sort", Stage: 20, At: at(0), Remain: 100}},
			},
			close: []Finished{{AppID: "app1", Finish: at(100), Succeeded: true}, {AppID: "app2", Finish: at(200), Succeeded: true},
				{AppID: "app3", Finish: at(300), Succeeded: true}, {AppID: "app4", Finish: at(400), Succeeded: true}},
			keep: 2, want: map[string]float64{"app1/20": 1, "app2/20": 2, "app3/20": 3, "app4/20": 4}, stored: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "h.db")
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.OpenPredictions(tt.open); err != nil {
				t.Fatal(err)
			}
			// Predictions wait durably for their job's end.
			s.Close()
			if s, err = Open(path); err != nil {
				t.Fatal(err)
			}
			got, err := s.ClosePredictions(tt.close, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("%d residuals, want %d: %+v", len(got), len(tt.want), got)
			}
			for _, r := range got {
				k := r.AppID + "/" + map[int]string{20: "20", 50: "50"}[r.Stage]
				if w, ok := tt.want[k]; !ok || math.Abs(r.Ratio-w) > 1e-9 {
					t.Errorf("%s: ratio %v, want %v (%v)", k, r.Ratio, w, ok)
				}
			}
			s.Close()
			if s, err = Open(path); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			all, err := s.Residuals()
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != tt.stored {
				t.Errorf("%d stored, want %d: %+v", len(all), tt.stored, all)
			}
			for i := 1; i < len(all); i++ {
				if all[i].Class == all[i-1].Class && all[i].Stage == all[i-1].Stage && all[i].Finish.Before(all[i-1].Finish) {
					t.Errorf("residuals out of finish order: %+v", all)
				}
			}
			// Closed predictions are gone: closing again adds nothing.
			if again, _ := s.ClosePredictions(tt.close, tt.keep); len(again) != 0 {
				t.Errorf("closed twice: %+v", again)
			}
		})
	}
}

// A prediction whose job never reaches JobHistory (killed before the
// history server saw it) is dropped a week after the newest finish.
func TestOpenPredictionsExpire(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.OpenPredictions(map[string][]Prediction{
		"lost":  {{Class: "etl", Stage: 20, At: t0, Remain: 100}},
		"alive": {{Class: "etl", Stage: 20, At: t0.Add(7 * 24 * time.Hour), Remain: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClosePredictions([]Finished{{AppID: "other", Finish: t0.Add(8 * 24 * time.Hour), Succeeded: true}}, 10); err != nil {
		t.Fatal(err)
	}
	got, err := s.ClosePredictions([]Finished{{AppID: "lost", Finish: t0.Add(8 * 24 * time.Hour), Succeeded: true},
		{AppID: "alive", Finish: t0.Add(8 * 24 * time.Hour), Succeeded: true}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].AppID != "alive" {
		t.Errorf("residuals %+v, want only alive's", got)
	}
}
