package hdfs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	colinmarc "github.com/colinmarc/hdfs/v2"
	krb "github.com/jcmturner/gokrb5/v8/client"
)

// DefaultTimeout bounds one NameNode call when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// ErrKerberosBlockLocations is returned by block-location calls on a
// Kerberos cluster: the block-location client speaks only simple auth.
var ErrKerberosBlockLocations = errors.New("hdfs: block locations over Kerberos (SASL) are not implemented")

// Options configure a Client. LoadOptions and OptionsFromConf fill them from
// HADOOP_CONF_DIR; flags may override Addresses.
type Options struct {
	// Addresses are the RPC host:port of the NameNodes, in the order to try
	// them (all NameNodes of an HA nameservice; a standby is skipped).
	Addresses []string
	// User is the HDFS user for simple auth; "" means the OS user.
	// (Hadoop's HADOOP_USER_NAME is the caller's to read.)
	User string
	// Timeout bounds each NameNode call of the block-location client.
	Timeout time.Duration
	// Recursive expands input directories below one level, as
	// mapreduce.input.fileinputformat.input.dir.recursive=true does.
	Recursive bool
	// Kerberos is set when hadoop.security.authentication=kerberos.
	Kerberos bool
	// KerberosClient and KerberosServicePrincipleName are passed to
	// colinmarc/hdfs as they are (untested here).
	KerberosClient               *krb.Client
	KerberosServicePrincipleName string
	// DialFunc opens NameNode connections; nil means a net.Dialer.
	DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Client reads the namespace and block locations of one HDFS nameservice.
type Client struct {
	opts Options
	ns   *colinmarc.Client
	loc  *locator
	// calls counts the NameNode RPCs this client made (Stat and the
	// block-location calls), for callers that budget them.
	calls atomic.Int64
}

// NewClient connects to the first available NameNode of opts.Addresses.
func NewClient(opts Options) (*Client, error) {
	if len(opts.Addresses) == 0 {
		return nil, ErrNoNameNode
	}
	if opts.Kerberos && opts.KerberosClient == nil {
		return nil, errors.New("hdfs: Kerberos is enabled but no KerberosClient (credentials) was given")
	}
	if opts.User == "" && opts.KerberosClient == nil {
		// Hadoop's default for simple auth; the CLI sets User from
		// HADOOP_USER_NAME or a flag first.
		u, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("hdfs: no user given: %w", err)
		}
		opts.User = u.Username
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	ns, err := colinmarc.NewClient(colinmarc.ClientOptions{
		Addresses:                    opts.Addresses,
		User:                         opts.User,
		NamenodeDialFunc:             opts.DialFunc,
		KerberosClient:               opts.KerberosClient,
		KerberosServicePrincipleName: opts.KerberosServicePrincipleName,
	})
	if err != nil {
		return nil, fmt.Errorf("hdfs: connect to NameNode %s: %w", strings.Join(opts.Addresses, ","), err)
	}
	loc, err := newLocator(opts)
	if err != nil {
		ns.Close()
		return nil, err
	}
	c := &Client{opts: opts, ns: ns, loc: loc}
	loc.calls = &c.calls
	return c, nil
}

// Namespace is the colinmarc/hdfs client, for Stat, ReadDir, Walk and
// GetContentSummary; its errors are *os.PathError with os.ErrNotExist and
// os.ErrPermission for the NameNode's exceptions.
func (c *Client) Namespace() *colinmarc.Client { return c.ns }

// Stat returns the status of a path.
func (c *Client) Stat(p string) (os.FileInfo, error) { c.calls.Add(1); return c.ns.Stat(p) }

// Calls is the number of NameNode calls made so far through Stat,
// JobBlockMap, FileBlocks and ListLocated (ReadDir and Walk through
// Namespace are not counted).
func (c *Client) Calls() int64 { return c.calls.Load() }

// ReadDir lists a directory in name order.
func (c *Client) ReadDir(p string) ([]os.FileInfo, error) { return c.ns.ReadDir(p) }

// Walk walks the tree under root in name order, as filepath.Walk does.
func (c *Client) Walk(root string, fn filepath.WalkFunc) error { return c.ns.Walk(root, fn) }

// Close closes both NameNode connections.
func (c *Client) Close() error {
	err := c.ns.Close()
	if lerr := c.loc.close(); err == nil {
		err = lerr
	}
	return err
}
