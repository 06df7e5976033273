package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A floor holds each answer of its kinds exactly once, in the kinds'
// order, whatever else the snapshot read.
func TestFloorURIs(t *testing.T) {
	apps := "/ws/v1/cluster/apps?deSelects=resourceRequests&states=RUNNING,ACCEPTED"
	lean := "/ws/v1/cluster/apps?deSelects=resourceRequests,resourceInfo&states=RUNNING"
	for _, tc := range []struct {
		name    string
		uris    []string
		kinds   []string
		want    []string
		wantErr string
	}{
		{"first snapshot", []string{"/ws/v1/cluster/metrics", "/ws/v1/cluster/get-node-labels", apps, "/ws/v1/cluster/nodes", "/ws/v1/cluster/scheduler",
			"/ws/v1/cluster/scheduler-conf/version", "/ws/v1/cluster/apps/application_1_0001/appattempts/appattempt_1_0001_000001/containers"},
			firstFloorKinds, []string{apps, "/ws/v1/cluster/nodes", "/ws/v1/cluster/scheduler"}, ""},
		{"next snapshot", []string{"/ws/v1/cluster/scheduler", lean, "/ws/v1/cluster/metrics", "/ws/v1/cluster/get-node-labels"},
			nextFloorKinds, []string{lean, "/ws/v1/cluster/scheduler", "/ws/v1/cluster/metrics"}, ""},
		{"an answer missing", []string{apps, "/ws/v1/cluster/scheduler"}, firstFloorKinds, nil, "no nodes answer"},
		{"an answer twice", []string{apps, lean, "/ws/v1/cluster/nodes", "/ws/v1/cluster/scheduler"}, firstFloorKinds, nil, "2 apps answers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := floorURIs(tc.uris, tc.kinds)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("floorURIs = %v, %v; want error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("floorURIs = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// readDiscarded reads every body to its end and fails on a non-200.
func TestReadDiscarded(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		n, _ := io.WriteString(w, strings.Repeat("x", 1<<16))
		served.Add(int64(n))
	}))
	defer srv.Close()
	if err := readDiscarded(srv.Client(), srv.URL, []string{"/a", "/b?x=1"}); err != nil {
		t.Fatal(err)
	}
	if served.Load() != 2<<16 {
		t.Fatalf("served %d bytes, want %d", served.Load(), 2<<16)
	}
	if err := readDiscarded(srv.Client(), srv.URL, []string{"/a", "/missing"}); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("readDiscarded with a 404 = %v, want HTTP 404", err)
	}
}

// The recorder sees every request URI a client sends, path and query.
func TestURIRecorder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	rec := &uriRecorder{rt: http.DefaultTransport}
	hc := &http.Client{Transport: rec}
	for _, u := range []string{"/ws/v1/cluster/metrics", "/ws/v1/cluster/apps?states=RUNNING"} {
		resp, err := hc.Get(srv.URL + u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got, want := rec.take(), []string{"/ws/v1/cluster/metrics", "/ws/v1/cluster/apps?states=RUNNING"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded %v, want %v", got, want)
	}
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("after take, recorded %v, want none", got)
	}
}

// A snapshot's requests part into its first phase and its listings.
func TestSplitListings(t *testing.T) {
	uris := []string{"/ws/v1/cluster/metrics", "/ws/v1/cluster/apps?states=RUNNING",
		"/ws/v1/cluster/apps/application_1_0001/appattempts/appattempt_1_0001_000001/containers",
		"/ws/v1/cluster/apps/application_1_0002/appattempts", "/ws/v1/cluster/get-node-labels"}
	first, listings := splitListings(uris)
	if want := []string{uris[0], uris[1], uris[4]}; !reflect.DeepEqual(first, want) {
		t.Errorf("first phase %v, want %v", first, want)
	}
	if want := []string{uris[2], uris[3]}; !reflect.DeepEqual(listings, want) {
		t.Errorf("listings %v, want %v", listings, want)
	}
}

// The phased read reads every URI once, never more than conc listings
// at a time, and fails on a listing's non-200. Each listing's handler
// holds until as many listings are in flight as may be (conc, or what is
// left) and every listing the client has sent has arrived, so the peak
// reaches the bound, and a read past it shows, without timing.
func TestReadDiscardedPhased(t *testing.T) {
	const conc, nListings = 3, 20
	var (
		mu             sync.Mutex
		cond           = sync.NewCond(&mu)
		inFlight, peak int
		listed, served int
		sent           int // listings the client sent and has no answer to
		expired        bool
	)
	// A deadline instead of a hang if the read never reaches conc.
	stop := time.AfterFunc(10*time.Second, func() { mu.Lock(); expired = true; cond.Broadcast(); mu.Unlock() })
	defer stop.Stop()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		if strings.HasPrefix(r.URL.Path, "/l") {
			inFlight++
			peak = max(peak, inFlight)
			cond.Broadcast()
			for !expired && (inFlight < min(conc, nListings-listed) || sent > inFlight) {
				cond.Wait()
			}
			inFlight--
			listed++
			cond.Broadcast()
		}
		served++
		mu.Unlock()
		io.WriteString(w, "{}")
	}))
	defer srv.Close()
	listings := make([]string, nListings)
	for i := range listings {
		listings[i] = fmt.Sprintf("/l%d", i)
	}
	hc := &http.Client{Transport: countSent{next: srv.Client().Transport, add: func(d int) {
		mu.Lock()
		sent += d
		cond.Broadcast()
		mu.Unlock()
	}}}
	if err := readDiscardedPhased(hc, srv.URL, []string{"/a", "/b"}, listings, conc); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if served != nListings+2 || peak != conc || expired {
		t.Errorf("served %d, peak in flight %d, deadline hit %v; want %d, %d, false", served, peak, expired, nListings+2, conc)
	}
	mu.Unlock()
	if err := readDiscardedPhased(srv.Client(), srv.URL, nil, []string{"/l0", "/missing"}, 2); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("with a missing listing: %v, want HTTP 404", err)
	}
}

// countSent tells add of each listing request (paths /l…) as it is sent
// (+1) and as its answer comes back (-1).
type countSent struct {
	next http.RoundTripper
	add  func(int)
}

func (c countSent) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasPrefix(r.URL.Path, "/l") {
		return c.next.RoundTrip(r)
	}
	c.add(1)
	defer c.add(-1)
	return c.next.RoundTrip(r)
}
