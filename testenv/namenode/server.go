package namenode

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/tcpserve"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DefaultLsLimit is Hadoop's dfs.ls.limit: entries per getListing page.
const DefaultLsLimit = 1000

// Options configure a mini NameNode.
type Options struct {
	// Standby makes every call fail with org.apache.hadoop.ipc.StandbyException,
	// as the standby NameNode of an HA pair answers client reads.
	Standby bool
	// Denied paths refuse the caller with AccessControlException, as a
	// directory of mode 0700 or a file of mode 0600 owned by someone else
	// would: a denied path can still be stat'ed, but not listed, read, or
	// traversed to reach anything below it.
	Denied []string
	// LsLimit is entries (and, with locations, block replicas) per listing
	// page; 0 means DefaultLsLimit.
	LsLimit int
	// BlockPoolID names the block pool in every ExtendedBlockProto.
	BlockPoolID string
}

// Server is a running mini NameNode.
type Server struct {
	fs     *hdfsns.FS
	opts   Options
	s      *schema
	ln     *tcpserve.Listener
	denied map[string]bool

	mu    sync.Mutex
	calls map[string]int

	// dnCache holds one DatanodeInfoProto per host: a block location repeats
	// the same few DataNodes, and a 100,000-block reply would otherwise
	// build 300,000 of them.
	dnMu    sync.Mutex
	dnCache map[hdfsns.Datanode]protoreflect.Message
	// emptyToken is the (read-only) block token of every block.
	emptyToken protoreflect.Message
}

// Start serves fs on 127.0.0.1 at a free port until Close.
func Start(fs *hdfsns.FS, opts Options) (*Server, error) {
	if fs == nil {
		return nil, errors.New("namenode: nil namespace")
	}
	s, err := newSchema()
	if err != nil {
		return nil, fmt.Errorf("namenode: %w", err)
	}
	if opts.LsLimit <= 0 {
		opts.LsLimit = DefaultLsLimit
	}
	if opts.BlockPoolID == "" {
		opts.BlockPoolID = "BP-1-127.0.0.1-1"
	}
	srv := &Server{
		fs: fs, opts: opts, s: s,
		denied:  map[string]bool{},
		calls:   map[string]int{},
		dnCache: map[hdfsns.Datanode]protoreflect.Message{},

		emptyToken: s.newEmptyToken(),
	}
	for _, p := range opts.Denied {
		srv.denied[path.Clean("/"+p)] = true
	}
	ln, err := tcpserve.Listen(srv.serve)
	if err != nil {
		return nil, fmt.Errorf("namenode: %w", err)
	}
	srv.ln = ln
	return srv, nil
}

// Addr is the host:port clients dial.
func (srv *Server) Addr() string { return srv.ln.Addr() }

// Calls returns how many times method was called, errors included, so tests
// can check that a listing was paged or a client batched its reads.
func (srv *Server) Calls(method string) int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.calls[method]
}

// Close stops listening, drops every connection and waits for their
// goroutines to end.
func (srv *Server) Close() error { return srv.ln.Close() }

func (srv *Server) count(method string) {
	srv.mu.Lock()
	srv.calls[method]++
	srv.mu.Unlock()
}

// deniedAt returns the denied path that guards p, or "" if none does. The
// denied path itself may be stat'ed (statOnly), as HDFS checks only
// traversal of the ancestors for getFileInfo.
func (srv *Server) deniedAt(p string, statOnly bool) string {
	if len(srv.denied) == 0 {
		return ""
	}
	for d := p; ; d = path.Dir(d) {
		if srv.denied[d] && !(statOnly && d == p) {
			return d
		}
		if d == "/" {
			return ""
		}
	}
}

// cleanPath turns a request path into a namespace path; HDFS paths are
// absolute, and a scheme and authority (hdfs://nn:8020/x) are not part of
// what clients send.
func cleanPath(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	return path.Clean(p), true
}
