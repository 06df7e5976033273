package namenode_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/colinmarc/hdfs/v2"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
)

// start serves fs and closes the server when the test ends.
func start(t *testing.T, fs *hdfsns.FS, opts namenode.Options) *namenode.Server {
	t.Helper()
	srv, err := namenode.Start(fs, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// client is colinmarc/hdfs's own client, unmodified, on addrs.
func client(t *testing.T, addrs ...string) *hdfs.Client {
	t.Helper()
	c, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: addrs, User: "test"})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func sampleFS() *hdfsns.FS {
	fs := hdfsns.New()
	fs.AddFile("/data/in/part-00000", 300, 128, [][]string{{"h1", "h2", "h3"}, {"h2", "h3", "h4"}, {"h3", "h4", "h1"}})
	fs.AddFile("/data/in/part-00001", 100, 128, [][]string{{"h1", "h2", "h3"}})
	fs.AddFile("/data/in/_SUCCESS", 0, 128, nil)
	fs.AddFile("/data/other/x", 10, 128, [][]string{{"h4"}})
	fs.Mkdir("/data/empty")
	return fs
}

func TestColinmarcStat(t *testing.T) {
	srv := start(t, sampleFS(), namenode.Options{})
	c := client(t, srv.Addr())
	cases := []struct {
		name    string
		path    string
		dir     bool
		size    int64
		wantErr error
	}{
		{"file", "/data/in/part-00000", false, 300, nil},
		{"empty file", "/data/in/_SUCCESS", false, 0, nil},
		{"directory", "/data/in", true, 0, nil},
		{"root", "/", true, 0, nil},
		{"missing", "/data/nope", false, 0, os.ErrNotExist},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fi, err := c.Stat(tc.path)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Stat(%s) err = %v, want %v", tc.path, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Stat(%s): %v", tc.path, err)
			}
			if fi.IsDir() != tc.dir || fi.Size() != tc.size {
				t.Errorf("Stat(%s) = dir %v size %d, want dir %v size %d", tc.path, fi.IsDir(), fi.Size(), tc.dir, tc.size)
			}
			if want := filepath.Base(tc.path); tc.path != "/" && fi.Name() != want {
				t.Errorf("Name() = %q, want %q", fi.Name(), want)
			}
		})
	}
}

func TestColinmarcReadDirAndWalk(t *testing.T) {
	srv := start(t, sampleFS(), namenode.Options{})
	c := client(t, srv.Addr())

	t.Run("readdir", func(t *testing.T) {
		fis, err := c.ReadDir("/data/in")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, fi := range fis {
			got = append(got, fmt.Sprintf("%s:%d", fi.Name(), fi.Size()))
		}
		want := "_SUCCESS:0 part-00000:300 part-00001:100"
		if strings.Join(got, " ") != want {
			t.Errorf("ReadDir = %v, want %s", got, want)
		}
	})
	t.Run("walk", func(t *testing.T) {
		var got []string
		err := c.Walk("/data", func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if fi.IsDir() {
				p += "/"
			}
			got = append(got, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"/data/", "/data/empty/", "/data/in/", "/data/in/_SUCCESS", "/data/in/part-00000",
			"/data/in/part-00001", "/data/other/", "/data/other/x"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("Walk = %v\nwant %v", got, want)
		}
	})
	t.Run("content summary", func(t *testing.T) {
		cs, err := c.GetContentSummary("/data")
		if err != nil {
			t.Fatal(err)
		}
		// 400+10 bytes; replicas: 128*3+128*3+44*3 + 100*3 + 10*1.
		if cs.Size() != 410 || cs.FileCount() != 4 || cs.DirectoryCount() != 4 || cs.SizeAfterReplication() != 1210 {
			t.Errorf("summary = size %d files %d dirs %d space %d", cs.Size(), cs.FileCount(), cs.DirectoryCount(), cs.SizeAfterReplication())
		}
	})
	t.Run("server defaults and fs stats", func(t *testing.T) {
		d, err := c.ServerDefaults()
		if err != nil {
			t.Fatal(err)
		}
		if d.BlockSize != 128<<20 || d.Replication != 3 {
			t.Errorf("defaults = %+v", d)
		}
		st, err := c.StatFs()
		if err != nil {
			t.Fatal(err)
		}
		if st.Used != 1210 {
			t.Errorf("StatFs used = %d, want 1210", st.Used)
		}
	})
	t.Run("read dir of a missing path", func(t *testing.T) {
		_, err := c.ReadDir("/data/nope")
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err = %v, want ErrNotExist", err)
		}
	})
}

func TestColinmarcLargeDirectoryIsPaged(t *testing.T) {
	fs := hdfsns.New()
	const n = 100000
	for i := 0; i < n; i++ {
		fs.AddFile(fmt.Sprintf("/big/f%06d", i), 1, 128, [][]string{{"h1"}})
	}
	srv := start(t, fs, namenode.Options{})
	c := client(t, srv.Addr())
	fis, err := c.ReadDir("/big")
	if err != nil {
		t.Fatal(err)
	}
	if len(fis) != n {
		t.Fatalf("ReadDir returned %d entries, want %d", len(fis), n)
	}
	names := make([]string, len(fis))
	for i, fi := range fis {
		names[i] = fi.Name()
	}
	if !sort.StringsAreSorted(names) || names[0] != "f000000" || names[n-1] != fmt.Sprintf("f%06d", n-1) {
		t.Errorf("entries out of order or missing: first %s last %s", names[0], names[n-1])
	}
	// dfs.ls.limit=1000: 100 pages, the last one reporting 0 remaining.
	if got := srv.Calls("getListing"); got != n/namenode.DefaultLsLimit {
		t.Errorf("getListing calls = %d, want %d", got, n/namenode.DefaultLsLimit)
	}
}

func TestColinmarcErrors(t *testing.T) {
	fs := sampleFS()
	t.Run("permission denied", func(t *testing.T) {
		srv := start(t, fs, namenode.Options{Denied: []string{"/data/in"}})
		c := client(t, srv.Addr())
		if _, err := c.Stat("/data/in"); err != nil {
			t.Errorf("Stat of the denied dir itself: %v (HDFS checks only ancestors)", err)
		}
		if _, err := c.ReadDir("/data/in"); !errors.Is(err, os.ErrPermission) {
			t.Errorf("ReadDir err = %v, want ErrPermission", err)
		}
		if _, err := c.Stat("/data/in/part-00000"); !errors.Is(err, os.ErrPermission) {
			t.Errorf("Stat below denied dir err = %v, want ErrPermission", err)
		}
		if _, err := c.ReadDir("/data/other"); err != nil {
			t.Errorf("ReadDir of an allowed dir: %v", err)
		}
	})
	t.Run("standby then active", func(t *testing.T) {
		standby := start(t, fs, namenode.Options{Standby: true})
		active := start(t, fs, namenode.Options{})
		c := client(t, standby.Addr(), active.Addr())
		if _, err := c.Stat("/data/in"); err != nil {
			t.Fatalf("Stat through standby+active: %v", err)
		}
		if standby.Calls("getFileInfo") != 1 || active.Calls("getFileInfo") != 1 {
			t.Errorf("calls standby=%d active=%d, want 1 and 1", standby.Calls("getFileInfo"), active.Calls("getFileInfo"))
		}
	})
	t.Run("standby only", func(t *testing.T) {
		standby := start(t, fs, namenode.Options{Standby: true})
		c := client(t, standby.Addr())
		_, err := c.Stat("/data/in")
		if err == nil || !strings.Contains(err.Error(), "StandbyException") {
			t.Errorf("err = %v, want a StandbyException", err)
		}
	})
}
