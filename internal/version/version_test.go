package version

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestLinkTimeValuesWin(t *testing.T) {
	defer func(v, r string) { version, revision = v, r }(version, revision)
	version, revision = "v0.1.0", "abc123"
	in := Get()
	if in.Version != "v0.1.0" || in.Revision != "abc123" || in.GoVersion != runtime.Version() {
		t.Errorf("Get() = %+v; want v0.1.0, abc123, %s", in, runtime.Version())
	}
	for _, s := range []string{"v0.1.0", "commit abc123", runtime.Version(), "Hadoop 3.3.6, 3.4.1"} {
		if !strings.Contains(in.String(), s) {
			t.Errorf("String() %q lacks %q", in.String(), s)
		}
	}
	var b bytes.Buffer
	_ = in.Write(&b, "yarn-sidecar")
	for _, s := range []string{"yarn-sidecar v0.1.0\n", "commit:  abc123", "3.3.6 (recorded from a real cluster)", "3.4.1 (from the Apache documentation"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("Write lacks %q:\n%s", s, b.String())
		}
	}
}

func TestBuildInfoMetric(t *testing.T) {
	defer func(v, r string) { version, revision = v, r }(version, revision)
	version, revision = "v0.1.0", "abc123"
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector())
	want := `# HELP yarn_sidecar_build_info A metric with a constant '1' value labeled by the version, revision and Go version yarn-sidecar was built from.
# TYPE yarn_sidecar_build_info gauge
yarn_sidecar_build_info{goversion="` + runtime.Version() + `",revision="abc123",version="v0.1.0"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "yarn_sidecar_build_info"); err != nil {
		t.Error(err)
	}
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", problems, err)
	}
}
