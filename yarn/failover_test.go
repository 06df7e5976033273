package yarn_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
)

// Item 11 against the mini cluster's RM HA pair (which answers as the
// recorded 3.3.6 pair): after the active RM stops and the other takes over,
// a snapshot reads every running job's AM through the new active RM's
// /proxy/, although the apps' trackingUrls still name the stopped RM; with
// no RM active the snapshot fails with ErrNoActiveRM.
func TestObserveAcrossRMFailover(t *testing.T) {
	tc := sim.Start(t, "../testenv/rmweb/testdata/real336.yaml", 1)
	pair := tc.StartHA(t)
	tc.Step(40 * time.Second) // both jobs started under rm1
	c, err := yarn.New(yarn.Config{RMAddresses: pair.URLs(), Timeout: 5 * time.Second, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	observe := func(what string) int {
		t.Helper()
		snap, err := c.Observe(ctx, yarn.ObserveOptions{Now: tc.Now(), Jobs: true})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(snap.Errors) > 0 {
			t.Fatalf("%s: load errors %+v", what, snap.Errors)
		}
		jobs := 0
		for _, a := range snap.RunningApps() {
			if a.Job == nil {
				t.Errorf("%s: app %s has no job", what, a.ID)
				continue
			}
			jobs++
			if u, err := url.Parse(a.TrackingURL); err != nil || "http://"+u.Host != pair.URL(0) {
				t.Errorf("%s: app %s trackingUrl %q, want it on rm1 (active at the app's start)", what, a.ID, a.TrackingURL)
			}
			if a.Queue != "root.crypto" && a.Queue != "root.sort" {
				t.Errorf("%s: app %s queue %q", what, a.ID, a.Queue)
			}
		}
		return jobs
	}
	if n := observe("before the failover"); n != 2 {
		t.Fatalf("%d running jobs, want 2", n)
	}
	if err := pair.Failover(); err != nil {
		t.Fatal(err)
	}
	tc.Step(5 * time.Second)
	if n := observe("after the failover"); n != 2 {
		t.Fatalf("%d running jobs after the failover, want 2", n)
	}
	if c.ActiveRM() != pair.URL(1) {
		t.Errorf("active RM %s, want rm2 %s", c.ActiveRM(), pair.URL(1))
	}
	pair.NoActive()
	if _, err := c.Observe(ctx, yarn.ObserveOptions{Now: tc.Now(), Jobs: true}); !errors.Is(err, yarn.ErrNoActiveRM) {
		t.Errorf("no active RM: %v, want ErrNoActiveRM", err)
	}
}
