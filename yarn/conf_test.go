package yarn

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestConfigFromHadoopConf(t *testing.T) {
	site := func(kv ...string) string {
		s := "<configuration>"
		for i := 0; i < len(kv); i += 2 {
			s += "<property><name>" + kv[i] + "</name><value>" + kv[i+1] + "</value></property>"
		}
		return s + "</configuration>"
	}
	cases := []struct {
		name, yarnSite, mapredSite string
		rms                        []string
		jhs                        string
		proxy                      string
	}{
		{"single RM", site("yarn.resourcemanager.webapp.address", "rm1:8088"), site("mapreduce.jobhistory.webapp.address", "jhs:19888"),
			[]string{"http://rm1:8088"}, "http://jhs:19888", ""},
		{"hostname only", site("yarn.resourcemanager.hostname", "rm"), "", []string{"http://rm:8088"}, "", ""},
		{"HA with HTTPS", site("yarn.http.policy", "HTTPS_ONLY", "yarn.resourcemanager.ha.enabled", "true", "yarn.resourcemanager.ha.rm-ids", "rm1,rm2",
			"yarn.resourcemanager.webapp.https.address.rm1", "a:8090", "yarn.resourcemanager.hostname.rm2", "b"), "",
			[]string{"https://a:8090", "https://b:8090"}, "", ""},
		{"standalone web proxy", site("yarn.resourcemanager.hostname", "rm", "yarn.web-proxy.address", "proxy:9046"), "",
			[]string{"http://rm:8088"}, "", "http://proxy:9046"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "yarn-site.xml"), []byte(tc.yarnSite), 0o600)
			if tc.mapredSite != "" {
				os.WriteFile(filepath.Join(dir, "mapred-site.xml"), []byte(tc.mapredSite), 0o600)
			}
			cfg, err := ConfigFromHadoopConf(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.RMAddresses, tc.rms) || cfg.JHSAddress != tc.jhs || cfg.WebProxyAddress != tc.proxy {
				t.Fatalf("got %v %q %q", cfg.RMAddresses, cfg.JHSAddress, cfg.WebProxyAddress)
			}
		})
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "yarn-site.xml"), []byte("<configuration><property>"), 0o600)
	if _, err := ConfigFromHadoopConf(dir); err == nil {
		t.Fatal("broken yarn-site.xml accepted")
	}
}
