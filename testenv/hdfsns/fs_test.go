package hdfsns_test

import (
	"fmt"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
)

func TestListPage(t *testing.T) {
	fs := hdfsns.New()
	for i := 0; i < 25; i++ {
		fs.AddFile(fmt.Sprintf("/d/f%02d", i), 1, 1, [][]string{{"h"}})
	}
	fs.Mkdir("/d/sub")
	cases := []struct {
		name       string
		after      string
		limit      int
		first      string
		n, remains int
	}{
		{"first page", "", 10, "/d/f00", 10, 16},
		{"after a name", "f09", 10, "/d/f10", 10, 6},
		{"after a name not present", "f095", 3, "/d/f10", 3, 13},
		{"last page", "f19", 10, "/d/f20", 6, 0},
		{"all", "", -1, "/d/f00", 26, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, rem, ok := fs.ListPage("/d", tc.after, tc.limit)
			if !ok || len(page) != tc.n || rem != tc.remains || page[0].Path != tc.first {
				t.Errorf("page of %d from %v, %d remaining, ok %v", len(page), page[0].Path, rem, ok)
			}
		})
	}
	t.Run("list sees files added after a listing", func(t *testing.T) {
		fs.AddFile("/d/a", 1, 1, nil)
		l, ok := fs.List("/d")
		if !ok || len(l) != 27 || l[0].Path != "/d/a" {
			t.Errorf("List = %d entries, first %s", len(l), l[0].Path)
		}
	})
	t.Run("not a directory", func(t *testing.T) {
		if _, ok := fs.List("/d/f00"); ok {
			t.Error("List of a file should be false")
		}
		if _, ok := fs.List("/nope"); ok {
			t.Error("List of a missing path should be false")
		}
	})
}

func TestDatanode(t *testing.T) {
	fs := hdfsns.New()
	fs.AddDatanode(hdfsns.Datanode{Host: "dn1", IPAddr: "192.0.2.1", Rack: "/r1"})
	cases := []struct {
		name, host, ip, rack string
	}{
		{"added", "dn1", "192.0.2.1", "/r1"},
		{"unknown host gets defaults", "dn2", "", hdfsns.DefaultRack},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dn := fs.Datanode(tc.host)
			if dn.Host != tc.host || dn.Rack != tc.rack || dn.XferPort != hdfsns.DefaultXferPort || dn.UUID == "" || dn.IPAddr == "" {
				t.Errorf("Datanode(%s) = %+v", tc.host, dn)
			}
			if tc.ip != "" && dn.IPAddr != tc.ip {
				t.Errorf("IPAddr = %s, want %s", dn.IPAddr, tc.ip)
			}
			if again := fs.Datanode(tc.host); again != dn {
				t.Errorf("identity not stable: %+v vs %+v", again, dn)
			}
		})
	}
}
