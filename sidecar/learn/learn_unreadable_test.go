package learn

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
)

// A job whose history file JobHistory cannot load (500, as recorded in
// jhs-unloadable/) does not stop learning: every other job is learned, the
// cursor moves past them all, the bad job is recorded in the store (a
// restart remembers it), tried again on UnreadableRetryDelays' schedule and
// given up after the last; a job repaired before that is learned on its
// next try and forgotten.
func TestLearnSkipsUnloadableJob(t *testing.T) {
	tc := sim.Start(t, "testdata/jhs-unloadable.yaml", 1)
	if !tc.RunUntilDone(time.Hour) {
		t.Fatal("not done")
	}
	apps := tc.Apps()
	if len(apps) != 4 {
		t.Fatalf("%d apps, want the recording's 4", len(apps))
	}
	var victim, repaired rmwebApp
	for _, a := range apps {
		switch {
		case a.Name == "victim":
			victim = rmwebApp{a.ID, a.Queue}
		case a.Name == "sort" && repaired.id == "":
			repaired = rmwebApp{a.ID, a.Queue}
		}
	}
	for _, id := range []string{victim.id, repaired.id} {
		if err := tc.DamageHistory(id); err != nil {
			t.Fatal(err)
		}
	}
	client, err := yarn.New(yarn.Config{RMAddresses: []string{tc.URL}, JHSAddress: tc.URL, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	snap, err := client.Observe(ctx, yarn.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.db")
	store, err := calibrate.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	learner := func(s *calibrate.Store) *HistoryLearner {
		return &HistoryLearner{Source: client, Store: s, ClassKey: calibrate.ClassKey("tag")}
	}
	l := learner(store)
	t0 := snap.Time
	learnAt := func(l *HistoryLearner, at time.Time) {
		t.Helper()
		s := snap
		s.Time = at
		if err := l.Learn(ctx, s); err != nil {
			t.Fatalf("Learn at +%s: %v (one unloadable job must not fail the ingest)", at.Sub(t0), err)
		}
	}
	learnAt(l, t0)

	jobsIn := func(s *calibrate.Store) map[string]int {
		all, err := s.All()
		if err != nil {
			t.Fatal(err)
		}
		by := map[string]int{}
		for _, x := range all {
			by["application"+strings.TrimPrefix(x.JobID, "job")]++
		}
		return by
	}
	learned := jobsIn(store)
	var last time.Time
	for _, a := range apps {
		if a.FinishedTime.After(last) {
			last = a.FinishedTime
		}
		bad := a.ID == victim.id || a.ID == repaired.id
		if got := learned[a.ID]; bad != (got == 0) {
			t.Errorf("%s (%s): %d samples learned; damaged %v", a.ID, a.Name, got, bad)
		}
	}
	if c, _ := store.Cursor(); c.Before(last.Truncate(time.Millisecond)) {
		t.Errorf("cursor %s, want past the last finished job %s", c, last)
	}
	u := l.Unreadable()
	if len(u) != 2 || u[0].Tries != 1 || u[0].GaveUp || !u[0].NextTry.Equal(t0.Add(calibrate.UnreadableRetryDelays[0])) ||
		!strings.Contains(u[0].LastError, "Could not load history file") {
		t.Fatalf("unreadable after the first ingest: %+v, want both damaged jobs tried once, next try in %s", u, calibrate.UnreadableRetryDelays[0])
	}

	// Not due: nothing asked again, nothing counted.
	learnAt(l, t0.Add(time.Minute))
	if u := l.Unreadable(); u[0].Tries != 1 || u[1].Tries != 1 {
		t.Fatalf("tried again before the next try was due: %+v", u)
	}

	// A restart reads the record from the store.
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if store, err = calibrate.Open(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l = learner(store)
	if err := tc.RestoreHistory(repaired.id); err != nil {
		t.Fatal(err)
	}
	at := t0
	for i, d := range calibrate.UnreadableRetryDelays {
		at = at.Add(d)
		learnAt(l, at)
		u := l.Unreadable()
		if len(u) != 1 || u[0].AppID != victim.id || u[0].Tries != i+2 {
			t.Fatalf("try %d at +%s: %+v, want the victim alone, tried %d times", i+2, at.Sub(t0), u, i+2)
		}
	}
	if n := jobsIn(store)[repaired.id]; n == 0 {
		t.Errorf("the repaired job was not learned on its next try")
	}
	u = l.Unreadable()
	if !u[0].GaveUp || !u[0].NextTry.IsZero() || u[0].Queue != victim.queue {
		t.Fatalf("after %d tries: %+v, want given up", len(calibrate.UnreadableRetryDelays)+1, u[0])
	}
	learnAt(l, at.Add(48*time.Hour))
	if u := l.Unreadable(); len(u) != 1 || u[0].Tries != len(calibrate.UnreadableRetryDelays)+1 {
		t.Fatalf("a given-up job was tried again or dropped early: %+v", u)
	}
	if n := jobsIn(store)[victim.id]; n != 0 {
		t.Errorf("the victim has %d samples", n)
	}
	// Reported for a week after the last try, then forgotten.
	learnAt(l, at.Add(8*24*time.Hour))
	if u := l.Unreadable(); len(u) != 0 {
		t.Errorf("given-up job still listed after a week: %+v", u)
	}
}

type rmwebApp struct{ id, queue string }
