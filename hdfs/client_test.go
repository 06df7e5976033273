package hdfs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
)

func startNN(t *testing.T, fs *hdfsns.FS, opts namenode.Options) *namenode.Server {
	t.Helper()
	srv, err := namenode.Start(fs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func newClient(t *testing.T, opts hdfs.Options, addrs ...string) *hdfs.Client {
	t.Helper()
	opts.Addresses = addrs
	if opts.User == "" {
		opts.User = "test"
	}
	c, err := hdfs.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// jobFS is a job's input: two directories with part files on known hosts,
// hidden files, a subdirectory, an empty file, and data of another job.
func jobFS() *hdfsns.FS {
	fs := hdfsns.New()
	fs.AddDatanode(hdfsns.Datanode{Host: "dn1", Rack: "/r1"})
	fs.AddDatanode(hdfsns.Datanode{Host: "dn2", Rack: "/r1"})
	fs.AddDatanode(hdfsns.Datanode{Host: "dn3", Rack: "/r2"})
	const mb = 1 << 20
	fs.AddFile("/user/test/logs/day1/part-0", 300*mb, 128*mb, [][]string{{"dn1", "dn2", "dn3"}, {"dn2", "dn3", "dn4"}, {"dn3", "dn4", "gpu1"}})
	fs.AddFile("/user/test/logs/day1/part-1", 10*mb, 128*mb, [][]string{{"dn4", "dn1", "dn2"}})
	fs.AddFile("/user/test/logs/day1/part-2", 0, 128*mb, nil)
	fs.AddFile("/user/test/logs/day1/_SUCCESS", 0, 128*mb, nil)
	fs.AddFile("/user/test/logs/day1/.part-0.crc", 1, 128*mb, [][]string{{"dn9"}})
	fs.AddFile("/user/test/logs/day1/_logs/history", 5, 128*mb, [][]string{{"dn9"}})
	fs.AddFile("/user/test/logs/day1/sub/deep", 5*mb, 128*mb, [][]string{{"dn5"}})
	fs.AddFile("/user/test/logs/day2/part-0", 200*mb, 128*mb, [][]string{{"dn5", "dn1", "dn2"}, {"dn5", "dn6", "dn1"}})
	fs.AddFile("/other/part-0", 50*mb, 128*mb, [][]string{{"dn7"}})
	return fs
}

// expected builds the block map straight from the namespace, the way the
// job's splits see it: non-hidden direct children of each input directory.
func expected(t *testing.T, fs *hdfsns.FS, dirs ...string) *hdfs.BlockMap {
	t.Helper()
	m := hdfs.NewBlockMap()
	for _, d := range dirs {
		kids, ok := fs.List(d)
		if !ok {
			t.Fatalf("no directory %s", d)
		}
		for _, f := range kids {
			name := path.Base(f.Path)
			if f.IsDir || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
				continue
			}
			var bs []hdfs.Block
			for _, b := range f.Blocks {
				var racks []string
				for _, h := range b.Hosts {
					racks = append(racks, fs.Datanode(h).Rack)
				}
				bs = append(bs, hdfs.Block{Offset: b.Offset, Length: b.Length, Hosts: b.Hosts, Racks: racks})
			}
			m.AddFile(bs)
		}
	}
	return m
}

func TestJobBlockMapMatchesNamespace(t *testing.T) {
	fs := jobFS()
	srv := startNN(t, fs, namenode.Options{})
	c := newClient(t, hdfs.Options{}, srv.Addr())
	ctx := context.Background()

	cases := []struct {
		name   string
		inputs []string
		want   *hdfs.BlockMap
		skip   int
	}{
		{"two directories", hdfs.SplitInputDirs("/user/test/logs/day1,hdfs://nn:8020/user/test/logs/day2"),
			expected(t, fs, "/user/test/logs/day1", "/user/test/logs/day2"), 1},
		{"relative path is under the user's home", []string{"logs/day2"}, expected(t, fs, "/user/test/logs/day2"), 0},
		{"glob in last component", []string{"/user/test/logs/day*"},
			expected(t, fs, "/user/test/logs/day1", "/user/test/logs/day2"), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.JobBlockMap(ctx, tc.inputs)
			if err != nil {
				t.Fatal(err)
			}
			if got.Files != tc.want.Files || got.Blocks != tc.want.Blocks || got.Bytes != tc.want.Bytes {
				t.Errorf("totals = %d files %d blocks %d bytes, want %d %d %d",
					got.Files, got.Blocks, got.Bytes, tc.want.Files, tc.want.Blocks, tc.want.Bytes)
			}
			for _, f := range []struct {
				what      string
				got, want any
			}{
				{"BytesByHost", got.BytesByHost, tc.want.BytesByHost},
				{"BlocksByHost", got.BlocksByHost, tc.want.BlocksByHost},
				{"RackOf", got.RackOf, tc.want.RackOf},
			} {
				if !reflect.DeepEqual(f.got, f.want) {
					t.Errorf("%s = %v\nwant %v", f.what, f.got, f.want)
				}
			}
			if got.SkippedDirs != tc.skip {
				t.Errorf("SkippedDirs = %d, want %d", got.SkippedDirs, tc.skip)
			}
			parts := map[string]string{"dn1": "", "dn2": "", "dn3": "", "dn4": "", "dn5": "", "dn6": "", "gpu1": "gpu", "gpu2": "gpu"}
			if g, w := got.ByPartition(parts), tc.want.ByPartition(parts); !reflect.DeepEqual(g, w) {
				t.Errorf("ByPartition = %v, want %v", g, w)
			}
		})
	}
	t.Run("hand-checked figures", func(t *testing.T) {
		m, err := c.JobBlockMap(ctx, []string{"/user/test/logs/day1"})
		if err != nil {
			t.Fatal(err)
		}
		const mb = 1 << 20
		// part-0: 128+128+44 MiB; part-1: 10 MiB; part-2: empty file.
		if m.Files != 3 || m.Blocks != 4 || m.Bytes != 310*mb {
			t.Errorf("totals = %d files %d blocks %d bytes", m.Files, m.Blocks, m.Bytes)
		}
		if m.BytesByHost["dn3"] != 300*mb || m.BytesByHost["gpu1"] != 44*mb || m.RackOf["dn3"] != "/r2" {
			t.Errorf("dn3 %d, gpu1 %d, dn3 rack %q", m.BytesByHost["dn3"], m.BytesByHost["gpu1"], m.RackOf["dn3"])
		}
		by := m.ByPartition(map[string]string{"dn1": "", "gpu1": "gpu"})
		if by[""] != 138*mb || by["gpu"] != 44*mb {
			t.Errorf("ByPartition = %v, want default 138 MiB (blocks 1 and part-1), gpu 44 MiB", by)
		}
	})
	t.Run("recursive", func(t *testing.T) {
		rc := newClient(t, hdfs.Options{Recursive: true}, srv.Addr())
		m, err := rc.JobBlockMap(ctx, []string{"/user/test/logs/day1"})
		if err != nil {
			t.Fatal(err)
		}
		// sub/deep is added; _logs stays hidden.
		if m.Files != 4 || m.SkippedDirs != 0 || m.BytesByHost["dn5"] != 5<<20 || m.BytesByHost["dn9"] != 0 {
			t.Errorf("files %d skipped %d dn5 %d dn9 %d", m.Files, m.SkippedDirs, m.BytesByHost["dn5"], m.BytesByHost["dn9"])
		}
	})
	t.Run("file input and a file of no blocks", func(t *testing.T) {
		m, err := c.JobBlockMap(ctx, []string{"/user/test/logs/day1/part-2"})
		if err != nil {
			t.Fatalf("a file of 0 blocks is not an error: %v", err)
		}
		if m.Files != 1 || m.Blocks != 0 || m.Bytes != 0 || len(m.BytesByHost) != 0 {
			t.Errorf("empty file map = %+v", m)
		}
		bs, err := c.FileBlocks(ctx, "/user/test/logs/day1/part-1")
		if err != nil {
			t.Fatal(err)
		}
		want := []hdfs.Block{{Offset: 0, Length: 10 << 20, Hosts: []string{"dn4", "dn1", "dn2"}, Racks: []string{"/default-rack", "/r1", "/r1"}}}
		if !reflect.DeepEqual(bs, want) {
			t.Errorf("FileBlocks = %+v, want %+v", bs, want)
		}
	})
}

func TestJobBlockMapLargeDirectory(t *testing.T) {
	fs := hdfsns.New()
	const n = 100000
	for i := 0; i < n; i++ {
		h := fmt.Sprintf("dn%d", i%100)
		fs.AddFile(fmt.Sprintf("/big/part-%06d", i), 1000, 128<<20, [][]string{{h, "dn100", "dn101"}})
	}
	srv := startNN(t, fs, namenode.Options{})
	c := newClient(t, hdfs.Options{}, srv.Addr())
	m, err := c.JobBlockMap(context.Background(), []string{"/big"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Files != n || m.Blocks != n || m.Bytes != n*1000 || m.BytesByHost["dn100"] != n*1000 || m.BytesByHost["dn7"] != n*1000/100 {
		t.Errorf("files %d blocks %d bytes %d dn100 %d dn7 %d", m.Files, m.Blocks, m.Bytes, m.BytesByHost["dn100"], m.BytesByHost["dn7"])
	}
	// With locations a page stops at 1,000 replicas: 334 files of 3 replicas.
	pages := srv.Calls("getListing")
	if want := (n + 333) / 334; pages != want {
		t.Errorf("getListing pages = %d, want %d", pages, want)
	}
}

func TestJobBlockMapErrors(t *testing.T) {
	ctx := context.Background()
	fs := jobFS()

	t.Run("missing path", func(t *testing.T) {
		srv := startNN(t, fs, namenode.Options{})
		c := newClient(t, hdfs.Options{}, srv.Addr())
		_, err := c.JobBlockMap(ctx, []string{"/user/test/logs/day1", "/user/test/nope"})
		var pe *os.PathError
		if !errors.Is(err, os.ErrNotExist) || !errors.As(err, &pe) || pe.Path != "/user/test/nope" {
			t.Errorf("err = %v, want ErrNotExist in a PathError for /user/test/nope", err)
		}
		if _, err := c.FileBlocks(ctx, "/user/test/nope"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("FileBlocks err = %v, want ErrNotExist", err)
		}
	})
	t.Run("permission denied", func(t *testing.T) {
		srv := startNN(t, fs, namenode.Options{Denied: []string{"/user/test/logs/day2", "/user/test/logs/day1/part-1"}})
		c := newClient(t, hdfs.Options{}, srv.Addr())
		for _, in := range []string{"/user/test/logs/day2", "/user/test/logs/day1/part-1"} {
			_, err := c.JobBlockMap(ctx, []string{in})
			if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "user=test") {
				t.Errorf("%s: err = %v, want ErrPermission naming the user", in, err)
			}
		}
	})
	t.Run("standby is skipped", func(t *testing.T) {
		standby := startNN(t, fs, namenode.Options{Standby: true})
		active := startNN(t, fs, namenode.Options{})
		c := newClient(t, hdfs.Options{}, standby.Addr(), active.Addr())
		m, err := c.JobBlockMap(ctx, []string{"/user/test/logs/day1"})
		if err != nil {
			t.Fatal(err)
		}
		if m.Files != 3 || active.Calls("getListing") != 1 || standby.Calls("getListing") != 1 {
			t.Errorf("files %d, listings active %d standby %d", m.Files, active.Calls("getListing"), standby.Calls("getListing"))
		}
	})
	t.Run("only a standby", func(t *testing.T) {
		standby := startNN(t, fs, namenode.Options{Standby: true})
		c := newClient(t, hdfs.Options{}, standby.Addr())
		_, err := c.FileBlocks(ctx, "/user/test/logs/day1/part-0")
		var nn *hdfs.NoNameNodeError
		if !errors.As(err, &nn) || !strings.Contains(err.Error(), standby.Addr()) || !strings.Contains(err.Error(), "StandbyException") {
			t.Errorf("err = %v, want NoNameNodeError naming %s as standby", err, standby.Addr())
		}
		if _, err := c.JobBlockMap(ctx, []string{"/user/test/logs/day1"}); err == nil || !strings.Contains(err.Error(), "StandbyException") {
			t.Errorf("JobBlockMap err = %v, want a standby error", err)
		}
	})
	t.Run("namenode down", func(t *testing.T) {
		srv, err := namenode.Start(fs, namenode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		addr := srv.Addr()
		srv.Close()
		_, err = hdfs.NewClient(hdfs.Options{Addresses: []string{addr}, User: "test"})
		if err == nil || !strings.Contains(err.Error(), addr) {
			t.Errorf("err = %v, want one naming %s", err, addr)
		}
	})
	t.Run("namenode goes down after connecting", func(t *testing.T) {
		srv, err := namenode.Start(fs, namenode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, hdfs.Options{}, srv.Addr())
		if _, err := c.FileBlocks(ctx, "/user/test/logs/day1/part-0"); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		_, err = c.FileBlocks(ctx, "/user/test/logs/day1/part-0")
		var nn *hdfs.NoNameNodeError
		if !errors.As(err, &nn) || !strings.Contains(err.Error(), srv.Addr()) {
			t.Errorf("err = %v, want NoNameNodeError naming %s", err, srv.Addr())
		}
	})
	t.Run("unsupported inputs", func(t *testing.T) {
		srv := startNN(t, fs, namenode.Options{})
		c := newClient(t, hdfs.Options{}, srv.Addr())
		for _, in := range []string{"s3a://bucket/x", "/user/*/logs", "/user/test/logs/none*"} {
			if _, err := c.JobBlockMap(ctx, []string{in}); err == nil {
				t.Errorf("%s: want an error", in)
			}
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		srv := startNN(t, fs, namenode.Options{})
		c := newClient(t, hdfs.Options{}, srv.Addr())
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := c.JobBlockMap(cctx, []string{"/user/test/logs/day1"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}
