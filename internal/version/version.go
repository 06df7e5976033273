// Package version says which build of yarn-sidecar is running: its module
// version, the commit it was built from, the Go toolchain, and the Hadoop
// releases it was checked against. `yarn-sidecar version`, `--version` and
// the yarn_sidecar_build_info metric all read it from here.
package version

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Set at link time by `make dist` (scripts/dist.sh) with
// -ldflags "-X .../internal/version.version=... -X ...revision=...": a
// build made with -buildvcs=false (this repository's CI sets GOFLAGS so)
// carries no vcs.revision, and `go build` of a checkout reports the module
// version as (devel). Empty: read from the binary's build info.
var (
	version  string
	revision string
)

// HadoopRelease is a Hadoop release the sidecar was checked against and how.
type HadoopRelease struct {
	Version string `json:"version"`
	How     string `json:"how"`
}

// Hadoop lists the releases yarn-sidecar's REST client was checked against.
// 3.3.6's responses were recorded from a real cluster and replayed in tests
// (testenv/rmweb dialect 3.3.6); 3.4.1's dialect in the mini cluster follows
// the Apache documentation and source, not a recording.
var Hadoop = []HadoopRelease{
	{Version: "3.3.6", How: "recorded from a real cluster"},
	{Version: "3.4.1", How: "from the Apache documentation and source, not recorded"},
}

// Info is one build's identity.
type Info struct {
	Version   string          `json:"version"`   // module version, a tag from git describe, or "(devel)"
	Revision  string          `json:"revision"`  // commit, "unknown" when the build recorded none
	Modified  bool            `json:"modified"`  // built from a tree with uncommitted changes
	GoVersion string          `json:"goVersion"` // toolchain, e.g. go1.26.8
	Hadoop    []HadoopRelease `json:"hadoop"`
}

// Get reads the running binary's build info, then the link-time values.
func Get() Info {
	in := Info{Version: "(devel)", Revision: "unknown", Hadoop: Hadoop}
	if bi, ok := debug.ReadBuildInfo(); ok {
		in.GoVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" {
			in.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		in.Version = version
	}
	if revision != "" {
		in.Revision = revision
	}
	return in
}

// String is the one line `--version` prints.
func (in Info) String() string {
	rev := in.Revision
	if in.Modified {
		rev += " (modified)"
	}
	var hs []string
	for _, h := range in.Hadoop {
		hs = append(hs, h.Version)
	}
	return fmt.Sprintf("%s (commit %s, %s; Hadoop %s)", in.Version, rev, in.GoVersion, strings.Join(hs, ", "))
}

// Write prints the long form `yarn-sidecar version` prints.
func (in Info) Write(w io.Writer, name string) error {
	rev := in.Revision
	if in.Modified {
		rev += " (built with uncommitted changes)"
	}
	fmt.Fprintf(w, "%s %s\ncommit:  %s\ngo:      %s\n", name, in.Version, rev, in.GoVersion)
	for i, h := range in.Hadoop {
		lead := "hadoop:  "
		if i > 0 {
			lead = "         "
		}
		fmt.Fprintf(w, "%s%s (%s)\n", lead, h.Version, h.How)
	}
	return nil
}

// NewCollector is the yarn_sidecar_build_info gauge: always 1, the build in
// its labels, as client_golang's go_build_info does for the toolchain
// (collectors.NewBuildInfoCollector), so a dashboard can join on it.
func NewCollector() prometheus.Collector {
	in := Get()
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "yarn_sidecar",
		Name:      "build_info",
		Help:      "A metric with a constant '1' value labeled by the version, revision and Go version yarn-sidecar was built from.",
		ConstLabels: prometheus.Labels{
			"version":   in.Version,
			"revision":  in.Revision,
			"goversion": in.GoVersion,
		},
	}, func() float64 { return 1 })
}
