// Command bench runs every end-to-end benchmark of yarn-sidecar and prints one
// table: each row has the figure, the baseline measured in the same run, and
// their ratio (BENCHMARKS.md records one run). Each area registers its rows
// from its own file (one file per area), so areas never edit each other.
//
// Run with `make bench` or `go run ./testenv/bench [-only AREA] [-seeds N]`.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Row is one line of the benchmark table.
type Row struct {
	Area     string // e.g. "mini cluster", "observe", "calibrate"
	Name     string // what was measured
	Figure   string // the measured value with units
	Baseline string // the baseline measured in the same run ("" when none)
	Ratio    string // figure vs baseline, or share of a bound
	Goal     string // the target, for reading the ratio
	// Detail marks a row that measures no goal and nothing that ships: a
	// candidate not shipped, a diagnostic, a per-class, per-seed or
	// per-cluster breakdown of a goal row, a wall time. It is printed only
	// with -candidates (issue 32: "make bench prints what ships").
	Detail bool
}

// Options are the command-line knobs every benchmark may read.
type Options struct {
	Seeds int // seeds for the scenario comparisons
	// FirstSeed is the first of them (benchSeeds: FirstSeed … FirstSeed+
	// Seeds-1), so a change tuned on seeds 1–3 can be checked on others.
	FirstSeed int64
	// DeadlineDays is how many seeds, each a day of history learned
	// online, the prediction rows run (default 9).
	DeadlineDays int
	Quick        bool // smaller sizes, for a smoke run
	// Rows, when set, runs only the row groups of an area whose name
	// contains it (areas that split their rows into named groups, e.g.
	// workloads: shift, fb, drift, polo, tight), for quick iteration.
	Rows string
	// NodeListingMaxAge is the observes' node-listing reuse bound
	// (yarn.ObserveOptions; 0: its default, negative: re-read every time).
	NodeListingMaxAge time.Duration
	// TightCycle is the sidecar's control interval in the tight rows (0:
	// the daemon's default, 30 s): whether deciding sooner after a goal
	// job arrives places its first wave better.
	TightCycle time.Duration
	// HeldOutN is how many generated clusters the heldout rows run, and
	// HeldOutTuning runs them on the tuning set instead (heldout.go).
	HeldOutN int
	// HeldOutRuns is how many run seeds each cluster's judged runs take
	// (pooled: a class's mean is over every run's jobs).
	HeldOutRuns   int
	HeldOutTuning bool
	// HeldOutSkip skips the first tuning clusters (with HeldOutTuning).
	HeldOutSkip int
	// HeldOutUnguarded also runs the sidecar without issue 32's guards
	// (no do-no-harm check, no calibration bound, no flap guard) on the
	// same clusters: the before of the guards, measured in the same run.
	HeldOutUnguarded bool
	// HeldOutAblate names decide steps (comma-separated Name()s): the
	// heldout rows also run the sidecar once without each of them
	// (heldout_ablate.go).
	HeldOutAblate string
	// HeldOutReplay also runs the replay-chosen static configuration
	// (heldout_replay.go), a candidate.
	HeldOutReplay bool
	// HeldOutStrategy is the judged sidecar's plan.strategy ("": the
	// config's default).
	HeldOutStrategy string
	// HeldOutLabels turns on safety.allow_node_label_changes for the
	// judged sidecar (with replay: its calibration lend).
	HeldOutLabels bool
	// Candidates also runs and prints the Detail rows (candidates not
	// shipped, diagnostics, breakdowns); without it an area may skip
	// computing them (deadline's candidate variants do).
	Candidates bool
}

// Bench is one registered benchmark area.
type Bench struct {
	Area  string
	Order int // table order; lower first
	Run   func(Options) ([]Row, error)
	// Rows is how many rows the area prints without -candidates, -rows
	// and -quick: one per goal or per figure of what ships. -list prints
	// them without running anything, TestDefaultRows holds their sum to
	// issue 32's bound, and a run whose count differs says so in the
	// table (checkRows).
	Rows int
}

var benches []Bench

func register(b Bench) { benches = append(benches, b) }

func main() {
	only := flag.String("only", "", "run only areas whose name contains this")
	seeds := flag.Int("seeds", 10, "seeds for scenario comparisons")
	firstSeed := flag.Int64("first-seed", 1, "first seed of the scenario comparisons that use benchSeeds (seeds first-seed … first-seed+seeds-1)")
	quick := flag.Bool("quick", false, "smaller sizes (smoke run)")
	deadlineDays := flag.Int("deadline-days", 9, "seeds the prediction rows run one after another, each a day of history learned online")
	rowsOnly := flag.String("rows", "", "run only the row groups whose name contains this (areas with named groups)")
	nodeAge := flag.Duration("node-listing-max-age", 0, "observe's node-listing reuse bound (0: the default, negative: re-read every snapshot)")
	tightCycle := flag.Duration("tight-cycle", 0, "the sidecar's control interval in the hetero-100-tight rows (0: the daemon's default, 30s)")
	heldoutN := flag.Int("heldout-n", 30, "generated clusters the heldout rows run (the first n of the set)")
	heldoutRuns := flag.Int("heldout-runs", 1, "run seeds per generated cluster for the heldout rows' judged runs (heldout-run-seed on), pooled per class")
	flag.Int64Var(&heldoutRunSeed, "heldout-run-seed", 1, "run seed of the heldout rows' judged runs (stock, best static, sidecar; the sweep keeps its own)")
	heldoutTuning := flag.Bool("heldout-tuning", false, "run the heldout rows on the tuning clusters (gen.TuningSeeds) instead of the held-out ones")
	heldoutSkip := flag.Int("heldout-skip", 0, "with -heldout-tuning: skip the first k tuning clusters (run seeds k+1..k+n)")
	heldoutUnguarded := flag.Bool("heldout-unguarded", false, "the heldout rows also run the sidecar without the do-no-harm, calibration-bound and flap guards")
	heldoutReplay := flag.Bool("heldout-replay", false, "the heldout rows also run the static configuration a replay of the stock warm-up day chooses from the sweep's family (a candidate; with -candidates to print it)")
	heldoutLabels := flag.Bool("heldout-labels", false, "heldout rows' sidecar with safety.allow_node_label_changes (with -heldout-strategy replay: the calibration lend)")
	heldoutStrategy := flag.String("heldout-strategy", "", "plan.strategy of the heldout rows' sidecar (ps, replay; empty: the default)")
	heldoutAblate := flag.String("heldout-ablate", "", "the heldout rows also run the sidecar once without each of these decide steps (comma-separated step names, e.g. \"route gain,goal route\")")
	candidates := flag.Bool("candidates", false, "also run and print the candidate, diagnostic and breakdown rows (Row.Detail); without it each area prints one row per goal or per figure of what ships")
	list := flag.Bool("list", false, "print each area's count of default rows (Bench.Rows) and their sum, without running anything")
	flag.Parse()
	sort.SliceStable(benches, func(i, j int) bool { return benches[i].Order < benches[j].Order })
	opts := Options{Seeds: *seeds, FirstSeed: *firstSeed, Quick: *quick, Rows: *rowsOnly, NodeListingMaxAge: *nodeAge, DeadlineDays: *deadlineDays, TightCycle: *tightCycle,
		HeldOutN: *heldoutN, HeldOutRuns: *heldoutRuns, HeldOutTuning: *heldoutTuning, HeldOutSkip: *heldoutSkip, HeldOutUnguarded: *heldoutUnguarded, HeldOutAblate: *heldoutAblate, HeldOutReplay: *heldoutReplay, HeldOutStrategy: *heldoutStrategy, HeldOutLabels: *heldoutLabels, Candidates: *candidates}
	if *list {
		listRows(os.Stdout, *only)
		return
	}

	var rows []Row
	failed := 0
	for _, b := range benches {
		if *only != "" && !strings.Contains(b.Area, *only) {
			continue
		}
		start := time.Now()
		fmt.Fprintf(os.Stderr, "bench: %s ...\n", b.Area)
		r, err := b.Run(opts)
		if err != nil {
			failed++
			fmt.Fprintf(os.Stderr, "bench: %s failed: %v\n", b.Area, err)
			rows = append(rows, Row{Area: b.Area, Name: "FAILED", Figure: err.Error()})
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s done in %s\n", b.Area, time.Since(start).Round(time.Millisecond))
		r = shown(r, opts.Candidates)
		if bad, ok := checkRows(b, r, opts); !ok {
			fmt.Fprintf(os.Stderr, "bench: %s: %s\n", b.Area, bad.Figure)
			r = append(r, bad)
		}
		rows = append(rows, r...)
	}
	fmt.Printf("yarn-sidecar benchmarks — %s, %s/%s, %d CPUs, %s\n", time.Now().UTC().Format(time.RFC3339), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	if *firstSeed != 1 {
		fmt.Printf("seeds %d–%d (-first-seed)\n", *firstSeed, *firstSeed+int64(*seeds)-1)
	}
	fmt.Println()
	writeTable(os.Stdout, rows)
	if failed > 0 {
		os.Exit(1)
	}
}

// writeTable prints the rows as one Markdown table, each cell as it is
// ('|' escaped). Padding every column to its widest cell, as a tabwriter
// does, made a recorded run megabytes of spaces: some cells run to
// thousands of characters.
func writeTable(w io.Writer, rows []Row) {
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
	line := func(cells ...string) {
		for i, c := range cells {
			cells[i] = cell.Replace(c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	line("area", "measure", "figure", "baseline (same run)", "ratio", "goal")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rows {
		line(r.Area, r.Name, r.Figure, r.Baseline, r.Ratio, r.Goal)
	}
}

// shown are the rows printed: all with -candidates, else those that are
// not Detail.
func shown(rows []Row, candidates bool) []Row {
	if candidates {
		return rows
	}
	var out []Row
	for _, r := range rows {
		if !r.Detail {
			out = append(out, r)
		}
	}
	return out
}

// checkRows compares an area's default rows with its declared Rows, where
// the run is the default one (no -candidates, -rows or -quick) and no
// scenario was skipped (a trace missing on this machine prints one row for
// its several): a difference is a row saying so, so that the declared
// count -list and TestDefaultRows read stays the one printed.
func checkRows(b Bench, rows []Row, o Options) (Row, bool) {
	// TREES_SCENARIOS runs part of the trees area (trees.go).
	if o.Candidates || o.Rows != "" || o.Quick || o.HeldOutAblate != "" || (b.Area == "trees" && os.Getenv("TREES_SCENARIOS") != "") {
		return Row{}, true
	}
	for _, r := range rows {
		if strings.HasPrefix(r.Figure, "skipped") {
			return Row{}, true
		}
	}
	if len(rows) == b.Rows {
		return Row{}, true
	}
	return Row{Area: b.Area, Name: "default rows printed vs declared (Bench.Rows)",
		Figure: fmt.Sprintf("printed %d default rows, Bench.Rows declares %d: fix the count in the area's register call", len(rows), b.Rows), Goal: "equal"}, false
}

// listRows prints each area's declared default rows and their sum.
func listRows(w io.Writer, only string) {
	total := 0
	for _, b := range benches {
		if only != "" && !strings.Contains(b.Area, only) {
			continue
		}
		fmt.Fprintf(w, "%-14s %4d\n", b.Area, b.Rows)
		total += b.Rows
	}
	fmt.Fprintf(w, "%-14s %4d (issue 32: ≤ %d)\n", "total", total, maxDefaultRows)
}

// maxDefaultRows is issue 32's bound on what `make bench` prints.
const maxDefaultRows = 150
