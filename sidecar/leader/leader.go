// Package leader elects one writing sidecar among several through
// ZooKeeper — which a Hadoop cluster with RM HA already runs — using the
// standard recipe: each candidate creates an ephemeral sequential node
// under Path; the lowest is the leader; every other watches the node just
// below its own. The lease is the ZooKeeper session: when the leader's
// process dies its session expires, ZooKeeper deletes its node, and the
// next candidate's watch fires. A candidate that loses its connection
// stops being leader at once (it cannot know whether its session lives),
// so two sidecars never both believe they lead.
//
// Imports: ZooKeeper's client and the standard library; no other sidecar
// room and no YARN client (sidecar/rooms_test.go checks it).
package leader

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/hashicorp/go-hclog"
)

// Elector campaigns for leadership until its context ends.
type Elector struct {
	Servers        []string      // ZooKeeper host:port list
	Path           string        // election znode, e.g. /yarn-sidecar/leader
	ID             string        // this candidate (host:pid), stored in its node
	SessionTimeout time.Duration // the lease: how long a dead leader keeps it
	Log            hclog.Logger
	// OnChange, when set, is called (from the elector's goroutine) each
	// time leadership is won or lost.
	OnChange func(leader bool)

	leader atomic.Bool
	node   string // our election node, owned by Run's goroutine
}

// IsLeader reports whether this candidate holds the lease now.
func (e *Elector) IsLeader() bool { return e.leader.Load() }

func (e *Elector) set(v bool) {
	if e.leader.Swap(v) != v {
		e.log().Info("leadership changed", "leader", v, "id", e.ID)
		if e.OnChange != nil {
			e.OnChange(v)
		}
	}
}

func (e *Elector) log() hclog.Logger {
	if e.Log == nil {
		return hclog.NewNullLogger()
	}
	return e.Log
}

// Run connects and campaigns until ctx ends; then it closes the session,
// which hands the lease over at once instead of after a timeout.
func (e *Elector) Run(ctx context.Context) error {
	if len(e.Servers) == 0 || e.Path == "" || !strings.HasPrefix(e.Path, "/") {
		return fmt.Errorf("leader election: want ZooKeeper servers and an absolute path, got %v and %q", e.Servers, e.Path)
	}
	if e.SessionTimeout <= 0 {
		e.SessionTimeout = 10 * time.Second
	}
	conn, events, err := zk.Connect(e.Servers, e.SessionTimeout, zk.WithLogInfo(false),
		zk.WithLogger(zkLogger{e.log()}))
	if err != nil {
		return fmt.Errorf("leader election: connect to ZooKeeper %v: %w", e.Servers, err)
	}
	defer func() {
		e.set(false)
		conn.Close()
	}()
	// Session state: a lost connection suspends leadership; an expired
	// session (our node is gone) restarts the campaign.
	sessionLost := make(chan struct{}, 1)
	go func() {
		for ev := range events {
			switch ev.State {
			case zk.StateDisconnected, zk.StateExpired:
				e.set(false)
				select {
				case sessionLost <- struct{}{}:
				default:
				}
			}
		}
	}()
	for ctx.Err() == nil {
		err := e.campaign(ctx, conn, sessionLost)
		if ctx.Err() != nil {
			return nil
		}
		e.set(false)
		e.log().Warn("leader election: campaign interrupted; retrying", "error", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(e.SessionTimeout / 4):
		}
	}
	return nil
}

// campaign creates this candidate's node and follows the recipe until the
// session is lost or ctx ends.
func (e *Elector) campaign(ctx context.Context, conn *zk.Conn, sessionLost <-chan struct{}) error {
	if err := ensurePath(conn, e.Path); err != nil {
		return err
	}
	// A node left by an interrupted campaign of a session that survived
	// would sit ahead of the new one: remove it first.
	if e.node != "" {
		if err := conn.Delete(e.node, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("remove our previous election node: %w", err)
		}
		e.node = ""
	}
	// Protected: after a connection loss mid-create, the node is found by
	// its GUID prefix rather than created twice.
	me, err := conn.CreateProtectedEphemeralSequential(e.Path+"/n_", []byte(e.ID), zk.WorldACL(zk.PermAll))
	if err != nil {
		return fmt.Errorf("create election node: %w", err)
	}
	e.node = me
	mine := path.Base(me)
	for {
		kids, _, err := conn.Children(e.Path)
		if err != nil {
			return fmt.Errorf("list candidates: %w", err)
		}
		sort.Slice(kids, func(i, j int) bool { return seq(kids[i]) < seq(kids[j]) })
		idx := -1
		for i, k := range kids {
			if k == mine {
				idx = i
			}
		}
		if idx < 0 {
			return errors.New("our election node is gone (session expired)")
		}
		if idx == 0 {
			if conn.State() != zk.StateHasSession {
				return errors.New("no session")
			}
			e.set(true)
			select {
			case <-ctx.Done():
				return nil
			case <-sessionLost:
				return errors.New("session lost while leading")
			}
		}
		e.set(false)
		exists, _, watch, err := conn.ExistsW(e.Path + "/" + kids[idx-1])
		if err != nil {
			return fmt.Errorf("watch candidate %s: %w", kids[idx-1], err)
		}
		if !exists {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-sessionLost:
			return errors.New("session lost while standing by")
		case <-watch:
		}
	}
}

// seq is the sequence number ZooKeeper appended (the last 10 digits).
func seq(node string) string {
	if len(node) < 10 {
		return node
	}
	return node[len(node)-10:]
}

func ensurePath(conn *zk.Conn, p string) error {
	cur := ""
	for _, part := range strings.Split(strings.Trim(p, "/"), "/") {
		cur += "/" + part
		_, err := conn.Create(cur, nil, 0, zk.WorldACL(zk.PermAll))
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", cur, err)
		}
	}
	return nil
}

// zkLogger routes the client's log lines to hclog at debug level.
type zkLogger struct{ l hclog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	z.l.Debug("zookeeper: " + fmt.Sprintf(format, args...))
}
