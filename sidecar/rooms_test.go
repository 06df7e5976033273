package sidecar

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const mod = "github.com/yarn-sidecar/yarn-sidecar/"

// yarnWriteCalls are the YARN write APIs (the yarn client's PUT/POST
// calls, rmadmin's refreshQueues): only sidecar/act calls them.
var yarnWriteCalls = []string{"UpdateConf", "SetAppPriority", "AddNodeLabels",
	"RemoveNodeLabels", "ReplaceNodeLabels", "MoveApp", "RefreshQueues"}

// roomRule is what one room's package comment says it must not import.
type roomRule struct {
	dir       string   // under sidecar/
	forbidden []string // import paths
	// mayWrite: the room may call YARN's write APIs (only act).
	mayWrite bool
	// noClock: the room may not read the clock (time.Now, time.Since).
	noClock bool
}

var (
	otherRooms = func(except ...string) []string {
		var out []string
		for _, r := range []string{"sidecar", "sidecar/act", "sidecar/plan", "sidecar/decide", "sidecar/learn", "sidecar/report", "sidecar/leader"} {
			if !slices.Contains(except, r) {
				out = append(out, mod+r)
			}
		}
		return out
	}
	// yarnClients: the YARN and HDFS clients and YARN's write paths.
	yarnClients = []string{mod + "yarn", mod + "yarn/rmadmin", mod + "yarn/csxml", mod + "hdfs",
		"github.com/go-resty/resty/v2", "net/http"}
	yarnWritePaths = []string{mod + "yarn/rmadmin", mod + "yarn/csxml", mod + "internal/killpoint"}
)

// roomRules is the table of rooms; every package under sidecar/ has a row
// (TestRoomImports fails on a directory without one, so a new room
// states its rule).
var roomRules = []roomRule{
	// The plumbing may import every room, and the yarn client for its
	// option defaults and label types, but writes nothing itself.
	{dir: ".", forbidden: yarnWritePaths},
	{dir: "act", forbidden: otherRooms("sidecar/act", "sidecar/plan"), mayWrite: true},
	// The decision is pure: no YARN or HDFS client, no files, no network,
	// no clock (the snapshot's time is the decision's now). It imports
	// sidecar/act for value types and checks only, never a write (mayWrite
	// is false): act.LabelChange (the lend it asks for) carries
	// yarn.Label, so it cannot move to sidecar/plan, which may not import
	// yarn; and the steps reuse act's rate-limit and lend rules
	// (RateLimit, UrgentRules, RaisesUrgent, LendCheck) so the decision
	// plans what act will let through.
	{dir: "decide", forbidden: append(append(otherRooms("sidecar/decide", "sidecar/act", "sidecar/plan"), yarnClients...), "os", "net", "github.com/hashicorp/go-hclog"), noClock: true},
	{dir: "plan", forbidden: append(append(otherRooms("sidecar/plan"), yarnClients...), "os", "net", "github.com/hashicorp/go-hclog"), noClock: true},
	{dir: "learn", forbidden: append(otherRooms("sidecar/learn"), yarnClients...)},
	{dir: "report", forbidden: append(otherRooms("sidecar", "sidecar/act", "sidecar/plan", "sidecar/report"), yarnClients...)},
	{dir: "report/browsertest", forbidden: append(otherRooms(), yarnClients...)},
	{dir: "leader", forbidden: append(otherRooms("sidecar/leader"), yarnClients...)},
}

// roomViolations parses dir's non-test files (no build, no network) and
// lists what breaks the rule: forbidden imports, YARN write calls outside
// act, clock reads in a pure room.
func roomViolations(t *testing.T, dir string, r roomRule) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, fn := range files {
		if strings.HasSuffix(fn, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, fn, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if slices.Contains(r.forbidden, p) {
				out = append(out, filepath.Base(fn)+" imports "+p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if !r.mayWrite && slices.Contains(yarnWriteCalls, sel.Sel.Name) {
				out = append(out, fmt.Sprintf("%s calls %s (a YARN write: only sidecar/act writes)", fset.Position(call.Pos()), sel.Sel.Name))
			}
			if x, ok := sel.X.(*ast.Ident); ok && r.noClock && x.Name == "time" && (sel.Sel.Name == "Now" || sel.Sel.Name == "Since") {
				out = append(out, fmt.Sprintf("%s reads the clock (time.%s)", fset.Position(call.Pos()), sel.Sel.Name))
			}
			return true
		})
	}
	return out
}

// TestRoomImports: each room under sidecar/ keeps to what its package
// comment (doc.go) allows — act is the only package that writes to YARN,
// plan and decide are pure, learn and report never reach the YARN client,
// and the rooms import each other in one direction (plumbing → decide →
// act → plan; learn, report → plan).
func TestRoomImports(t *testing.T) {
	for _, r := range roomRules {
		t.Run(r.dir, func(t *testing.T) {
			if v := roomViolations(t, r.dir, r); len(v) > 0 {
				t.Errorf("sidecar/%s breaks its rule (doc.go):\n  %s", r.dir, strings.Join(v, "\n  "))
			}
		})
	}
	// Every package directory under sidecar/ has a row.
	var dirs []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == "." {
			return err
		}
		if d.Name() == "testdata" || d.Name() == "assets" {
			return filepath.SkipDir
		}
		if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) > 0 {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if !slices.ContainsFunc(roomRules, func(r roomRule) bool { return r.dir == d }) {
			t.Errorf("sidecar/%s has no row in roomRules: say what the room may import", d)
		}
	}
}

// TestRoomRuleCatches: the check sees a forbidden import and a write call
// (a room written to break both, in a temporary directory).
func TestRoomRuleCatches(t *testing.T) {
	dir := t.TempDir()
	src := "package plan\n\nimport (\n\t\"net/http\"\n\t\"time\"\n)\n\nfunc f(c interface{ UpdateConf() }) { c.UpdateConf(); _ = http.MethodPut; _ = time.Now() }\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := roomRules[slices.IndexFunc(roomRules, func(r roomRule) bool { return r.dir == "plan" })]
	v := roomViolations(t, dir, r)
	want := []string{"imports net/http", "calls UpdateConf", "reads the clock"}
	for _, w := range want {
		if !slices.ContainsFunc(v, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("violations %q miss %q", v, w)
		}
	}
}
