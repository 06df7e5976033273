package hdfs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
)

// FuzzLoadOptions: core-site.xml and hdfs-site.xml from HADOOP_CONF_DIR
// (the shipped configs/hadoop files are the seeds) give NameNode addresses
// or an error, never a panic.
func FuzzLoadOptions(f *testing.F) {
	core, err := os.ReadFile("../configs/hadoop/core-site.xml")
	if err != nil {
		f.Fatal(err)
	}
	site, err := os.ReadFile("../configs/hadoop/hdfs-site.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(core, site)
	f.Add([]byte(`<configuration><property><name>fs.defaultFS</name><value>hdfs://ns1</value></property></configuration>`),
		[]byte(`<configuration><property><name>dfs.ha.namenodes.ns1</name><value>nn1,nn2</value></property><property><name>dfs.namenode.rpc-address.ns1.nn1</name><value>a:8020</value></property></configuration>`))
	f.Add([]byte(`<configuration><property><name>fs.defaultFS</name><value>hdfs://[::1</value></property></configuration>`), []byte(nil))
	f.Fuzz(func(t *testing.T, coreSite, hdfsSite []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "core-site.xml"), coreSite, 0o600); err != nil {
			t.Fatal(err)
		}
		if hdfsSite != nil {
			if err := os.WriteFile(filepath.Join(dir, "hdfs-site.xml"), hdfsSite, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		opts, err := hdfs.LoadOptions(dir)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "hdfs:") {
				t.Fatalf("error does not say it is the HDFS config: %v", err)
			}
			return
		}
		if len(opts.Addresses) == 0 {
			t.Fatal("no error and no NameNode address")
		}
	})
}
