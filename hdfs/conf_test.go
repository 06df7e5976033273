package hdfs_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/colinmarc/hdfs/v2/hadoopconf"
	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
)

func TestNameNodes(t *testing.T) {
	cases := []struct {
		name        string
		conf        hadoopconf.HadoopConf
		nameservice string
		want        []string
		wantErr     bool
	}{
		{"host without port", hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://nn.example.com"}, "", []string{"nn.example.com:8020"}, false},
		{"host with port", hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://nn.example.com:9000"}, "", []string{"nn.example.com:9000"}, false},
		{"ha in listed order", hadoopconf.HadoopConf{
			"fs.defaultFS":                     "hdfs://ns",
			"dfs.ha.namenodes.ns":              "b, a",
			"dfs.namenode.rpc-address.ns.a":    "a:8020",
			"dfs.namenode.rpc-address.ns.b":    "b:8020",
			"dfs.namenode.rpc-address.other.x": "x:8020",
			"dfs.ha.namenodes.other":           "x",
		}, "", []string{"b:8020", "a:8020"}, false},
		{"explicit nameservice", hadoopconf.HadoopConf{
			"fs.defaultFS":                     "hdfs://ns",
			"dfs.ha.namenodes.other":           "x",
			"dfs.namenode.rpc-address.other.x": "x:8020",
		}, "other", []string{"x:8020"}, false},
		{"ha namenode without address", hadoopconf.HadoopConf{"fs.defaultFS": "hdfs://ns", "dfs.ha.namenodes.ns": "a"}, "", nil, true},
		{"no defaultFS falls back to rpc-address", hadoopconf.HadoopConf{"dfs.namenode.rpc-address": "z:8020"}, "", []string{"z:8020"}, false},
		{"local defaultFS", hadoopconf.HadoopConf{"fs.defaultFS": "file:///"}, "", nil, true},
		{"nothing", hadoopconf.HadoopConf{}, "", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := hdfs.NameNodes(tc.conf, tc.nameservice)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("NameNodes = %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NameNodes = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLoadOptions(t *testing.T) {
	cases := []struct {
		name     string
		dir      string
		addrs    []string
		kerberos bool
		spn      string
	}{
		{"ha nameservice", "testdata/ha", []string{"nn2.example.com:8020", "nn1.example.com:8020"}, false, ""},
		{"single kerberized", "testdata/single", []string{"namenode.example.com:8020"}, true, "nn/_HOST"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := hdfs.LoadOptions(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(o.Addresses, tc.addrs) || o.Kerberos != tc.kerberos || o.KerberosServicePrincipleName != tc.spn {
				t.Errorf("options = %+v", o)
			}
		})
	}
	t.Run("empty dir", func(t *testing.T) {
		if _, err := hdfs.LoadOptions(t.TempDir()); err == nil {
			t.Error("want an error for a directory without site files")
		}
	})
	t.Run("kerberos without credentials", func(t *testing.T) {
		o, err := hdfs.LoadOptions("testdata/single")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hdfs.NewClient(o); err == nil {
			t.Error("NewClient with Kerberos and no KerberosClient should fail")
		}
	})
	t.Run("no address", func(t *testing.T) {
		if _, err := hdfs.NewClient(hdfs.Options{}); !errors.Is(err, hdfs.ErrNoNameNode) {
			t.Errorf("err = %v, want ErrNoNameNode", err)
		}
	})
}
