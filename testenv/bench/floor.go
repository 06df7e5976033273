package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// The floor rows (issue 19): a bound on what a snapshot can cost against
// the same RM. The answers a snapshot cannot do without are fetched with
// the snapshot's own parallelism (all at once, as observe's first phase)
// and discarded unread (io.Copy to io.Discard): no decoding, no per-app
// requests. If that alone is above the goal's share of the exporter's
// scrape, no client can meet the goal while it needs those answers.
//
// Which answers, by requestKind:
//   - the first snapshot: apps with resourceInfo (each app's use per
//     partition), nodes (sizes, partitions and, through host names, node
//     types), scheduler (queues, their capacities and use);
//   - the next snapshot, 30 s later: apps without resourceInfo (lean;
//     the use is kept or estimated), scheduler, and metrics (what says the
//     node listing may be reused; without it the listing must be read).
//
// Left out, so the floor stays a lower bound: node labels (exclusivity;
// a cluster without labels answers empty), the scheduler-conf version (a
// plan's guard, not the snapshot's content), and the per-app container
// listings (a snapshot without them estimates placements).
var (
	firstFloorKinds = []string{"apps", "nodes", "scheduler"}
	nextFloorKinds  = []string{"apps", "scheduler", "metrics"}
)

// uriRecorder records the request URIs (path and query) a client sends.
type uriRecorder struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	uris []string
}

func (r *uriRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.uris = append(r.uris, req.URL.RequestURI())
	r.mu.Unlock()
	return r.rt.RoundTrip(req)
}

// take returns the URIs recorded so far and forgets them.
func (r *uriRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.uris
	r.uris = nil
	return out
}

// floorURIs picks the recorded URIs of the given kinds, each kind
// exactly once (an error if one is missing or repeated: a floor must
// hold each answer the snapshot needs, once).
func floorURIs(uris []string, kinds []string) ([]string, error) {
	byKind := map[string][]string{}
	for _, u := range uris {
		path, _, _ := strings.Cut(u, "?")
		k := requestKind(path)
		byKind[k] = append(byKind[k], u)
	}
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		switch got := byKind[k]; len(got) {
		case 1:
			out = append(out, got[0])
		case 0:
			return nil, fmt.Errorf("floor: the snapshot read no %s answer", k)
		default:
			return nil, fmt.Errorf("floor: the snapshot read %d %s answers (%v), want one", len(got), k, got)
		}
	}
	return out, nil
}

// readDiscarded GETs every URI at once and discards each body unread.
func readDiscarded(hc *http.Client, base string, uris []string) error {
	return getAll(hc, base, uris, func(_ int, body io.Reader) error {
		_, err := io.Copy(io.Discard, body)
		return err
	})
}

// getAll GETs every URI at once (as the exporter does, and the floor after
// it) and hands each 200 body to read; it returns every failure, joined.
func getAll(hc *http.Client, base string, uris []string, read func(i int, body io.Reader) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(uris))
	for i, u := range uris {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := hc.Get(base + u)
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs[i] = fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
				return
			}
			errs[i] = read(i, resp.Body)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// splitListings parts a snapshot's recorded URIs into its first phase
// (everything read at once: metrics, nodes, scheduler, apps, labels,
// conf version) and its per-app listings (containers, appattempts),
// which observe sends after the first phase, a few at a time.
func splitListings(uris []string) (first, listings []string) {
	for _, u := range uris {
		path, _, _ := strings.Cut(u, "?")
		switch requestKind(path) {
		case "containers", "appattempts":
			listings = append(listings, u)
		default:
			first = append(first, u)
		}
	}
	return first, listings
}

// readDiscardedPhased reads first all at once, then listings at most
// conc at a time, as observe does, discarding every body unread.
func readDiscardedPhased(hc *http.Client, base string, first, listings []string, conc int) error {
	if err := readDiscarded(hc, base, first); err != nil {
		return err
	}
	var (
		wg   sync.WaitGroup
		sem  = make(chan struct{}, conc)
		mu   sync.Mutex
		errs []error
	)
	for _, u := range listings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := readDiscarded(hc, base, []string{u}); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}
