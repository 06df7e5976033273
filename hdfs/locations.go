package hdfs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Block is one block of a file and where its replicas are.
type Block struct {
	Offset int64
	Length int64
	// Hosts are the DataNode host names holding a replica, in the
	// NameNode's order; Racks[i] is the network location of Hosts[i].
	Hosts []string
	Racks []string
}

// NoNameNodeError means no NameNode of the list answered as the active one.
type NoNameNodeError struct {
	// Errs holds, per address tried, why it was skipped.
	Errs map[string]error
	// Addrs are the addresses in the order tried.
	Addrs []string
}

func (e *NoNameNodeError) Error() string {
	parts := make([]string, 0, len(e.Addrs))
	for _, a := range e.Addrs {
		parts = append(parts, fmt.Sprintf("%s: %v", a, e.Errs[a]))
	}
	return "hdfs: no active NameNode reachable (" + strings.Join(parts, "; ") + ")"
}

// locator is the block-location client: getBlockLocations and located
// getListing over hdfs/ipc, failing over across the NameNodes as
// ConfiguredFailoverProxyProvider does (a standby or an unreachable NameNode
// sends the call to the next one).
type locator struct {
	opts Options
	s    *locSchema

	calls *atomic.Int64 // the Client's call counter; nil counts nothing

	mu   sync.Mutex
	conn *ipc.Conn
	cur  int // index in opts.Addresses of conn, or of the next to dial
}

func newLocator(opts Options) (*locator, error) {
	s, err := newLocSchema()
	if err != nil {
		return nil, fmt.Errorf("hdfs: %w", err)
	}
	return &locator{opts: opts, s: s}, nil
}

func (l *locator) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	err := l.conn.Close()
	l.conn = nil
	return err
}

// call runs one method on the active NameNode, trying each address at most
// once. Exceptions other than StandbyException are the caller's to map.
func (l *locator) call(ctx context.Context, method string, req, resp protoreflect.Message) error {
	if l.opts.KerberosClient != nil {
		return ErrKerberosBlockLocations
	}
	if l.calls != nil {
		l.calls.Add(1)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.opts.Addresses)
	fail := &NoNameNodeError{Errs: map[string]error{}}
	for i := 0; i < n; i++ {
		addr := l.opts.Addresses[l.cur]
		if l.conn == nil {
			cctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
			c, err := ipc.Dial(cctx, addr, l.opts.User, l.opts.DialFunc)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				fail.Addrs = append(fail.Addrs, addr)
				fail.Errs[addr] = err
				l.cur = (l.cur + 1) % n
				continue
			}
			l.conn = c
		}
		cctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
		err := l.conn.Call(cctx, method, req.Interface(), resp.Interface())
		cancel()
		var re *ipc.RemoteError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &re) && !re.Standby():
			return err
		case ctx.Err() != nil:
			l.conn.Close()
			l.conn = nil
			return ctx.Err()
		}
		// Standby, or the connection broke: try the next NameNode.
		fail.Addrs = append(fail.Addrs, addr)
		fail.Errs[addr] = err
		l.conn.Close()
		l.conn = nil
		l.cur = (l.cur + 1) % n
	}
	return fail
}

// FileBlocks returns the blocks of one file and their replica locations,
// with one getBlockLocations call over the whole file (length MaxInt64, the
// largest a Java long accepts, so no stat is needed first). A file of no
// blocks gives an empty slice; a directory fails with the NameNode's
// FileNotFoundException ("Path is not a file").
func (c *Client) FileBlocks(ctx context.Context, p string) ([]Block, error) {
	s := c.loc.s
	req := s.blocksReq.New()
	req.Set(s.blocksSrc, protoreflect.ValueOfString(p))
	req.Set(s.blocksOffset, protoreflect.ValueOfUint64(0))
	req.Set(s.blocksLength, protoreflect.ValueOfUint64(math.MaxInt64))
	resp := s.blocksResp.New()
	if err := c.loc.call(ctx, "getBlockLocations", req, resp); err != nil {
		return nil, pathErr("getBlockLocations", p, err)
	}
	return s.blocks(resp.Get(s.blocksLocations).Message(), nil), nil
}

// Entry is one child in a located listing.
type Entry struct {
	Name   string
	IsDir  bool
	Size   int64
	Blocks []Block // nil for directories
}

// ListLocated lists a directory with every file's block locations, paging
// as the NameNode does (getListing with needLocation, as
// DistributedFileSystem.listLocatedStatus), calling fn for each entry in
// name order. A file path lists as itself.
func (c *Client) ListLocated(ctx context.Context, dir string, fn func(Entry) error) error {
	s := c.loc.s
	var after []byte
	for {
		req := s.listReq.New()
		req.Set(s.listSrc, protoreflect.ValueOfString(dir))
		req.Set(s.listStartAfter, protoreflect.ValueOfBytes(after))
		req.Set(s.listNeedLocation, protoreflect.ValueOfBool(true))
		resp := s.listResp.New()
		if err := c.loc.call(ctx, "getListing", req, resp); err != nil {
			return pathErr("getListing", dir, err)
		}
		if !resp.Has(s.listDirList) {
			// FSDirStatAndListingOp answers a missing path with no listing.
			return &os.PathError{Op: "getListing", Path: dir, Err: os.ErrNotExist}
		}
		dl := resp.Get(s.listDirList).Message()
		list := dl.Get(s.dirPartial).List()
		var hosts map[string]string // interns host names across the page
		for i := 0; i < list.Len(); i++ {
			st := list.Get(i).Message()
			name := string(st.Get(s.stPath).Bytes())
			e := Entry{
				Name:  name,
				IsDir: st.Get(s.stType).Enum() == s.typeDir,
				Size:  int64(st.Get(s.stLength).Uint()),
			}
			if !e.IsDir {
				if hosts == nil {
					hosts = map[string]string{}
				}
				e.Blocks = s.blocks(st.Get(s.stLocations).Message(), hosts)
			}
			if err := fn(e); err != nil {
				return err
			}
			after = []byte(name)
		}
		if dl.Get(s.dirRemaining).Uint() == 0 || list.Len() == 0 {
			return nil
		}
	}
}

// pathErr wraps a NameNode failure in an *os.PathError; the *ipc.RemoteError
// inside answers errors.Is(os.ErrNotExist) and errors.Is(os.ErrPermission).
func pathErr(op, p string, err error) error {
	if err == ErrKerberosBlockLocations {
		return err
	}
	return &os.PathError{Op: op, Path: p, Err: err}
}
