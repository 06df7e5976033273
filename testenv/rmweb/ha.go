package rmweb

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// HAPair serves one State as an RM HA pair the way two real RMs with
// automatic failover answer (recorded on 3.3.6 in ../shared/real-hadoop-
// 3.3.6/ha/, testdata/real-3.3.6/ha):
//   - the active RM serves everything; GET /isActive is 200 "I am Active!";
//   - a standby answers GET /ws/v1/cluster/info itself (haState STANDBY),
//     /isActive with 405, and every other REST call (GET or PUT) with 307,
//     Location the active RM's URL for the same path and query and the
//     text/plain body "This is standby RM. The redirect url is: /ws/v1/...";
//     a redirected PUT is not applied;
//   - with no active RM, a standby answers 307 without Location, with
//     "Refresh: N;url=..." and "Can not find any active RM. Will retry in
//     next N seconds.";
//   - the RM web proxy (/proxy/) and JobHistory are served by either RM;
//   - an app's trackingUrl keeps the host of the RM that was active when
//     the app started; a stopped RM refuses connections.
//
// Failover is driven by the test (Failover, StopActive, Promote,
// NoActive, Restart): the mini cluster has no ZooKeeper election.
type HAPair struct {
	s State
	o Options

	mu      sync.Mutex
	rms     [2]*haRM
	active  int // index of the active RM, -1 for none
	history []activeSince
}

type haRM struct {
	addr string // host:port, fixed for the pair's life
	srv  *http.Server
	ln   net.Listener
	up   bool
}

type activeSince struct {
	at     time.Time // virtual time
	active int
}

// RefreshSeconds is the retry interval a standby announces when no RM is
// active (the real RM draws it at random, 2–6 s in the recordings).
const RefreshSeconds = 5

// StartHAPair serves s as rm1 (active) and rm2 (standby) on two loopback
// ports.
func StartHAPair(s State, o Options) (*HAPair, error) {
	p := &HAPair{s: s, o: o, active: 0}
	for i := range p.rms {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("rm%d: listen: %w", i+1, err)
		}
		p.rms[i] = &haRM{addr: ln.Addr().String()}
		p.serve(i, ln)
	}
	p.history = append(p.history, activeSince{at: s.ClusterStarted(), active: 0})
	return p, nil
}

func (p *HAPair) serve(i int, ln net.Listener) {
	rm := p.rms[i]
	rm.ln, rm.up = ln, true
	rm.srv = &http.Server{Handler: p.handler(i), ReadHeaderTimeout: 10 * time.Second}
	go rm.srv.Serve(ln)
}

// URL is rm i's base URL (i = 0 for rm1, 1 for rm2).
func (p *HAPair) URL(i int) string { return "http://" + p.rms[i].addr }

// URLs are both RMs' base URLs, as yarn.resourcemanager.webapp.address.rm1,rm2.
func (p *HAPair) URLs() []string { return []string{p.URL(0), p.URL(1)} }

// Active is the index of the active RM, -1 when none is.
func (p *HAPair) Active() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.active
}

// StopActive stops the active RM (its port refuses connections from now
// on) and leaves no RM active until Promote.
func (p *HAPair) StopActive() {
	p.mu.Lock()
	i := p.active
	p.setActiveLocked(-1)
	p.mu.Unlock()
	if i >= 0 {
		p.stop(i)
	}
}

// Promote makes rm i the active RM (it must be running).
func (p *HAPair) Promote(i int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.rms[i].up {
		return fmt.Errorf("rm%d is stopped; Restart it first", i+1)
	}
	p.setActiveLocked(i)
	return nil
}

// Failover is what a real pair does when the active RM stops: the active
// is stopped and the other RM becomes active.
func (p *HAPair) Failover() error {
	old := p.Active()
	if old < 0 {
		return errors.New("no active RM to fail over from")
	}
	p.StopActive()
	return p.Promote(1 - old)
}

// NoActive turns the active RM into a standby without promoting the other
// (yarn rmadmin -transitionToStandby --forcemanual): both RMs run and
// neither is active.
func (p *HAPair) NoActive() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setActiveLocked(-1)
}

// Restart starts a stopped RM again on its old address, as a standby.
func (p *HAPair) Restart(i int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rms[i].up {
		return nil
	}
	ln, err := net.Listen("tcp", p.rms[i].addr)
	if err != nil {
		return fmt.Errorf("rm%d: listen %s again: %w", i+1, p.rms[i].addr, err)
	}
	p.serve(i, ln)
	return nil
}

// Close stops both RMs.
func (p *HAPair) Close() {
	for i := range p.rms {
		if p.rms[i] != nil {
			p.stop(i)
		}
	}
}

func (p *HAPair) stop(i int) {
	p.mu.Lock()
	rm := p.rms[i]
	up := rm.up
	rm.up = false
	p.mu.Unlock()
	if !up {
		return
	}
	// A stopped RM drops its connections at once, as a killed one does.
	rm.srv.Close()
}

func (p *HAPair) setActiveLocked(i int) {
	p.active = i
	p.history = append(p.history, activeSince{at: p.s.Now(), active: i})
}

// trackingHost is the address of the RM that was active when the app
// started (the last RM active at or before its start).
func (p *HAPair) trackingHost(a App) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	host := ""
	for _, h := range p.history {
		if h.at.After(a.StartedTime) {
			break
		}
		if h.active >= 0 {
			host = p.rms[h.active].addr
		}
	}
	return host
}

func (p *HAPair) handler(i int) http.Handler {
	activeOpts, standbyOpts := p.o, p.o
	activeOpts.HAState, standbyOpts.HAState = "ACTIVE", "STANDBY"
	active := newHandler(&handler{s: p.s, o: activeOpts, appTrackingHost: p.trackingHost})
	standby := &handler{s: p.s, o: standbyOpts, appTrackingHost: p.trackingHost}
	passThrough := newHandler(standby)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		act := p.active
		activeAddr := ""
		if act >= 0 {
			activeAddr = p.rms[act].addr
		}
		p.mu.Unlock()
		if act == i {
			if r.URL.Path == "/isActive" {
				w.Header().Set("Content-Type", "text/plain;charset=utf-8")
				io.WriteString(w, "I am Active!")
				return
			}
			active.ServeHTTP(w, r)
			return
		}
		switch {
		case r.URL.Path == "/isActive":
			notActive(w)
		case r.URL.Path == "/ws/v1/cluster/info" || r.URL.Path == "/ws/v1/cluster" || r.URL.Path == "/ws/v1/cluster/":
			w.Header().Set("Date", p.s.Now().UTC().Format(http.TimeFormat))
			writeJSON(w, map[string]any{"clusterInfo": standby.clusterInfo()})
		case strings.HasPrefix(r.URL.Path, "/proxy/") || strings.HasPrefix(r.URL.Path, "/ws/v1/history") || strings.HasPrefix(r.URL.Path, "/jobhistory/"):
			// The standby's web proxy serves (recorded); JobHistory is
			// its own server in a real cluster.
			passThrough.ServeHTTP(w, r)
		default:
			standbyRedirect(w, r, "http://"+p.rms[i].addr, activeAddr)
		}
	})
}

// standbyRedirect is RMWebAppFilter's answer on a standby RM.
func standbyRedirect(w http.ResponseWriter, r *http.Request, self, activeAddr string) {
	uri := r.URL.RequestURI()
	w.Header().Set("Content-Type", "text/plain;charset=utf-8")
	if activeAddr == "" {
		sep := "?"
		if r.URL.RawQuery != "" {
			sep = "&"
		}
		w.Header().Set("Refresh", fmt.Sprintf("%d;url=%s%s%snext.refresh.interval=1", RefreshSeconds, self, uri, sep))
		w.WriteHeader(http.StatusTemporaryRedirect)
		fmt.Fprintf(w, "Can not find any active RM. Will retry in next %d seconds.\nHA Zookeeper Connection State: CONNECTED\n", RefreshSeconds)
		return
	}
	w.Header().Set("Location", "http://"+activeAddr+uri)
	w.WriteHeader(http.StatusTemporaryRedirect)
	fmt.Fprintf(w, "This is standby RM. The redirect url is: %s\n", uri)
}

// notActive is the standby's /isActive (Jetty's error page, recorded).
func notActive(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html;charset=iso-8859-1")
	w.Header().Set("Cache-Control", "must-revalidate,no-cache,no-store")
	w.WriteHeader(http.StatusMethodNotAllowed)
	io.WriteString(w, "<html>\n<head>\n<meta http-equiv=\"Content-Type\" content=\"text/html;charset=ISO-8859-1\"/>\n"+
		"<title>Error 405 I am not Active!</title>\n</head>\n<body><h2>HTTP ERROR 405 I am not Active!</h2>\n<table>\n"+
		"<tr><th>URI:</th><td>/isActive</td></tr>\n<tr><th>STATUS:</th><td>405</td></tr>\n"+
		"<tr><th>MESSAGE:</th><td>I am not Active!</td></tr>\n<tr><th>SERVLET:</th><td>isActive</td></tr>\n</table>\n\n</body>\n</html>\n")
}
