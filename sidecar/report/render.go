package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
)

//go:embed assets/chart.umd.min.js
var chartJS string

//go:embed page.html.tmpl
var pageTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) },
	"f2":  func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"f1":  func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"ts":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"hm":  func(t time.Time) string { return t.UTC().Format("15:04") },
	"tsp": func(t *time.Time) string {
		if t == nil {
			return "—"
		}
		return t.UTC().Format("01-02 15:04Z")
	},
	"pp": func(p *float64) string {
		if p == nil {
			return "—"
		}
		return fmt.Sprintf("%.0f%%", *p*100)
	},
	"dur": fmtMinutes,
	"deref": func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	},
	"div60": func(x float64) float64 { return x / 60 },
	"onoff": onOff,
	"adm":   admin,
	"ps":    psText,
	"stage": stageText,
	"execs": executorsText,
	"mul":   func(a, b int) int { return a * b },
	"used":  usedText,
	"pct1":  func(x float64) string { return trimPct(x) + "%" },
	"heat":  heatColor,
	"part":  partitionName,
}).Parse(pageTemplate))

// Options tune a rendering.
type Options struct {
	Title string
	// Generated is the time printed as "generated at" (passed in: no clock).
	Generated time.Time
	// Outcomes, when set, are finished jobs of the steered run and of a
	// named baseline: the "what it bought" section compares them.
	Outcomes *Outcomes
}

// JobOutcome is one finished job.
type JobOutcome struct {
	AppID    string     `json:"appId"`
	Name     string     `json:"name"`
	Class    string     `json:"class"`
	Queue    string     `json:"queue"`
	Submit   time.Time  `json:"submit"`
	Finish   time.Time  `json:"finish"`
	Deadline *time.Time `json:"deadline,omitempty"`
}

// Minutes is the job's completion time from submission.
func (j JobOutcome) Minutes() float64 { return j.Finish.Sub(j.Submit).Minutes() }

// Met reports whether a job with a deadline finished by it.
func (j JobOutcome) Met() bool { return j.Deadline != nil && !j.Finish.After(*j.Deadline) }

// Outcomes are the finished jobs of the steered run and of a baseline.
type Outcomes struct {
	// Baseline names what the steered jobs are compared with, e.g.
	// "the same day under stock capacities (no sidecar)".
	Baseline     string
	BaselineJobs []JobOutcome
	Steered      []JobOutcome
	// CycleTimed counts steered jobs whose finish YARN did not report to
	// the sidecar: they are timed to the last cycle that saw them running.
	CycleTimed int
}

// seenOutcomes are the jobs the sidecar itself saw finish, without a
// baseline: what a daemon's /report can show of "what it bought", timed
// by YARN's startedTime and finishedTime where the sidecar read them.
func seenOutcomes(fin []sidecar.SeenJob) *Outcomes {
	o := &Outcomes{}
	for _, j := range fin {
		start, finish := j.Span()
		if j.Finished.IsZero() {
			o.CycleTimed++
		}
		o.Steered = append(o.Steered, JobOutcome{AppID: j.AppID, Name: j.Name, Class: j.Class, Queue: j.Queue,
			Submit: start, Finish: finish, Deadline: j.Deadline})
	}
	return o
}

// SmoothWindow is the moving-average window of the per-queue PS charts.
const SmoothWindow = 5 * time.Minute

// heatRow is one class of the CR heatmap.
type heatRow struct {
	Class string
	Cells []sidecar.RateStatus
}

type view struct {
	Options
	Status   sidecar.Status
	Header   Header
	Rows     []QueueRow
	Spark    []sparkobs.AppView
	Types    []string
	Heat     []heatRow
	Queues   map[string][]sidecar.JobStatus
	QNames   []string
	Why      []cycleWhy
	Churn    []queueChurn
	Classes  []classRow
	Goals    goalCounts
	Window   string
	ChartJS  template.JS
	DataJSON template.JS
}

// cycleWhy is one plan change in words: a sentence per queue.
type cycleWhy struct {
	Time      time.Time
	Result    act.Result
	Sentences []string
	Changes   []plan.Change
	Error     string
}

// classRow is one job class's completion times, baseline vs steered.
type classRow struct {
	Class    string
	Base     Quantiles
	Steered  Quantiles
	Ratio    float64 // steered median / baseline median
	HasRatio bool
}

// Quantiles summarise a distribution of completion times (minutes).
type Quantiles struct {
	N                            int
	Min, P25, P50, P75, P90, Max float64
	Mean                         float64
}

type goalCounts struct {
	Show                      bool
	BaseMet, BaseMissed       int
	SteeredMet, SteeredMissed int
	AtRisk                    int
}

// chartData is what the page's script turns into charts. Times are minutes
// from T0 (epoch ms) so every chart shares one linear axis.
type chartData struct {
	T0         int64            `json:"t0"`
	Partitions []partitionChart `json:"partitions"`
	Shares     []shareChart     `json:"shares"`
	Boxes      boxChart         `json:"boxes"`
	Timeline   timelineChart    `json:"timeline"`
	Mutations  []xy             `json:"mutations"`
	JobPS      jobPSChart       `json:"jobPS"`
	CDFs       []cdfChart       `json:"cdfs"`
}

type xy struct {
	X float64  `json:"x"`
	Y *float64 `json:"y"`
}

type partitionChart struct {
	ID     string       `json:"id"`
	Name   string       `json:"name"`
	Queues []queueSteps `json:"queues"`
}

type queueSteps struct {
	Queue string `json:"queue"`
	// AdminAbs is the admin's guarantee as % of the partition.
	AdminAbs *float64 `json:"admin"`
	Steps    []xy     `json:"steps"` // guarantee, % of partition
	Used     []xy     `json:"used"`  // use, % of partition
}

type shareChart struct {
	ID    string `json:"id"`
	Queue string `json:"queue"`
	PS    []xy   `json:"ps"`
	Fair  []xy   `json:"fair"`
}

type boxChart struct {
	Labels []string     `json:"labels"`
	Whisk  [][2]float64 `json:"whisk"` // min–p90
	Box    [][2]float64 `json:"box"`   // p25–p75
	Median [][2]float64 `json:"median"`
	Base   []bool       `json:"base"`
}

type timelineChart struct {
	Labels   []string      `json:"labels"`
	Run      [][2]float64  `json:"run"` // submit → finish (or → p90 when running)
	Status   []string      `json:"status"`
	Deadline [][2]float64  `json:"deadline"`
	Baseline []*[2]float64 `json:"baseline"` // the job's finish in the baseline, null when none
}

type jobPSChart struct {
	Jobs map[string][]xy `json:"jobs"`
}

type cdfChart struct {
	ID       string    `json:"id"`
	Job      string    `json:"job"`
	Minutes  []float64 `json:"minutes"` // minutes from the report time
	P        []float64 `json:"p"`
	Deadline *float64  `json:"deadline,omitempty"`
}

// Render writes the report for st.
func Render(w io.Writer, st sidecar.Status, opts Options) error {
	if opts.Title == "" {
		opts.Title = "yarn-sidecar report"
	}
	if opts.Outcomes == nil && len(st.Finished) > 0 {
		opts.Outcomes = seenOutcomes(st.Finished)
	}
	v := view{Options: opts, Status: st, Header: HeaderOf(st), ChartJS: template.JS(chartJS), Queues: map[string][]sidecar.JobStatus{},
		Window: fmtMinutes(SmoothWindow.Minutes()), Rows: StatusOf(st).Queues, Spark: sparkApps(st)}

	types := map[string]bool{}
	byClass := map[string]map[string]sidecar.RateStatus{}
	for _, r := range st.Rates {
		types[r.NodeType] = true
		if byClass[r.Class] == nil {
			byClass[r.Class] = map[string]sidecar.RateStatus{}
		}
		byClass[r.Class][r.NodeType] = r
	}
	v.Types = slices.Sorted(maps.Keys(types))
	for _, c := range slices.Sorted(maps.Keys(byClass)) {
		row := heatRow{Class: c}
		for _, t := range v.Types {
			cell, ok := byClass[c][t]
			if !ok {
				cell = sidecar.RateStatus{Class: c, NodeType: t}
			}
			row.Cells = append(row.Cells, cell)
		}
		v.Heat = append(v.Heat, row)
	}
	for _, j := range st.Jobs {
		v.Queues[j.Queue] = append(v.Queues[j.Queue], j)
	}
	v.QNames = slices.Sorted(maps.Keys(v.Queues))
	for i := len(st.Plans) - 1; i >= 0; i-- { // newest first
		v.Why = append(v.Why, explain(st.Plans[i]))
	}
	v.Churn = churn(st.Plans)

	t0 := st.Time
	if len(st.History) > 0 {
		t0 = st.History[0].Time
	}
	if o := opts.Outcomes; o != nil {
		for _, j := range append(append([]JobOutcome(nil), o.Steered...), o.BaselineJobs...) {
			if j.Submit.Before(t0) && !j.Submit.IsZero() {
				t0 = j.Submit
			}
		}
	}
	mins := func(t time.Time) float64 { return round3(t.Sub(t0).Minutes()) }
	data := chartData{T0: t0.UnixMilli(), JobPS: jobPSChart{Jobs: map[string][]xy{}}, Mutations: []xy{}, CDFs: []cdfChart{},
		Partitions: []partitionChart{}, Shares: []shareChart{}}
	data.Partitions = partitionCharts(st, mins)
	data.Shares = shareCharts(st, mins)
	for _, h := range st.History {
		for app, ps := range h.Jobs {
			x := round3(ps)
			data.JobPS.Jobs[app] = append(data.JobPS.Jobs[app], xy{X: mins(h.Time), Y: &x})
		}
	}
	for _, m := range st.Mutations {
		n := float64(m.Count)
		data.Mutations = append(data.Mutations, xy{X: mins(m.Hour), Y: &n})
	}
	v.Classes, data.Boxes = classRows(opts.Outcomes)
	data.Timeline, v.Goals = timeline(st, opts.Outcomes, mins)
	for i, j := range st.Jobs {
		if len(j.CDF) == 0 {
			continue
		}
		c := cdfChart{ID: fmt.Sprintf("cdf%d", i), Job: j.Name + " (" + j.AppID + ")"}
		for _, p := range j.CDF {
			c.Minutes = append(c.Minutes, round3(p.T.Sub(st.Time).Minutes()))
			c.P = append(c.P, round3(p.P))
		}
		if j.Deadline != nil {
			d := round3(j.Deadline.Sub(st.Time).Minutes())
			c.Deadline = &d
		}
		data.CDFs = append(data.CDFs, c)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode chart data: %w", err)
	}
	v.DataJSON = template.JS(b)
	if err := page.Execute(w, v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}

// partitionCharts builds, per partition, each queue's guarantee as steps
// (absolute, % of the partition), the admin's as a reference, and its use.
func partitionCharts(st sidecar.Status, mins func(time.Time) float64) []partitionChart {
	type key struct{ q, p string }
	series := map[key]*queueSteps{}
	parts := map[string]bool{}
	for _, h := range st.History {
		for _, q := range h.Queues {
			k := key{q.Queue, q.Partition}
			s := series[k]
			if s == nil {
				s = &queueSteps{Queue: q.Queue}
				series[k] = s
				parts[q.Partition] = true
			}
			c, u := round3(q.AbsCapacity), round3(q.AbsUsed)
			s.Steps = append(s.Steps, xy{X: mins(h.Time), Y: &c})
			s.Used = append(s.Used, xy{X: mins(h.Time), Y: &u})
			if admin, ok := st.Admin[sidecar.AdminKey(q.Queue, q.Partition)]; ok && s.AdminAbs == nil && q.Capacity > 0 {
				// Children of root: % of parent = % of partition; deeper
				// queues scale by the parent's share.
				a := round3(admin * q.AbsCapacity / q.Capacity)
				s.AdminAbs = &a
			} else if ok && s.AdminAbs == nil && q.AbsCapacity == 0 && q.Capacity == 0 {
				a := round3(admin)
				s.AdminAbs = &a
			}
		}
	}
	out := []partitionChart{}
	for i, p := range slices.Sorted(maps.Keys(parts)) {
		pc := partitionChart{ID: fmt.Sprintf("part%d", i), Name: partitionName(p), Queues: []queueSteps{}}
		for k, s := range series {
			if k.p == p && (nonZero(s.Steps) || nonZero(s.Used) || (s.AdminAbs != nil && *s.AdminAbs > 0)) {
				pc.Queues = append(pc.Queues, *s)
			}
		}
		sort.Slice(pc.Queues, func(i, j int) bool { return pc.Queues[i].Queue < pc.Queues[j].Queue })
		if len(pc.Queues) > 0 {
			out = append(out, pc)
		}
	}
	return out
}

func nonZero(s []xy) bool {
	for _, p := range s {
		if p.Y != nil && *p.Y != 0 {
			return true
		}
	}
	return false
}

// shareCharts builds, per queue, its running jobs' PS summed and its fair
// share, each averaged over the cycles of the last SmoothWindow in which the
// queue ran jobs; null when it ran none in the window (a gap, not a zero).
func shareCharts(st sidecar.Status, mins func(time.Time) float64) []shareChart {
	queues := map[string]bool{}
	for _, h := range st.History {
		for _, s := range h.Shares {
			queues[s.Queue] = true
		}
	}
	out := []shareChart{}
	for i, q := range slices.Sorted(maps.Keys(queues)) {
		sc := shareChart{ID: fmt.Sprintf("share%d", i), Queue: q, PS: []xy{}, Fair: []xy{}}
		type pt struct {
			t        time.Time
			ps, fair float64
			running  bool
		}
		var pts []pt
		for _, h := range st.History {
			p := pt{t: h.Time}
			for _, s := range h.Shares {
				if s.Queue == q && s.Jobs > 0 {
					p.ps, p.fair, p.running = s.PS, s.Fair, true
				}
			}
			pts = append(pts, p)
		}
		lo := 0
		var sumPS, sumFair float64
		n := 0
		for hi, p := range pts {
			if p.running {
				sumPS += p.ps
				sumFair += p.fair
				n++
			}
			for pts[lo].t.Before(p.t.Add(-SmoothWindow)) || pts[lo].t.Equal(p.t.Add(-SmoothWindow)) {
				if pts[lo].running {
					sumPS -= pts[lo].ps
					sumFair -= pts[lo].fair
					n--
				}
				lo++
			}
			_ = hi
			x := mins(p.t)
			if n == 0 { // nothing ran in the whole window
				sc.PS = append(sc.PS, xy{X: x})
				sc.Fair = append(sc.Fair, xy{X: x})
				continue
			}
			a, f := round3(sumPS/float64(n)), round3(sumFair/float64(n))
			sc.PS = append(sc.PS, xy{X: x, Y: &a})
			sc.Fair = append(sc.Fair, xy{X: x, Y: &f})
		}
		out = append(out, sc)
	}
	return out
}

// classRows are per class completion-time quantiles, baseline vs steered,
// and the box chart's bars.
func classRows(o *Outcomes) ([]classRow, boxChart) {
	box := boxChart{Labels: []string{}, Whisk: [][2]float64{}, Box: [][2]float64{}, Median: [][2]float64{}, Base: []bool{}}
	if o == nil {
		return nil, box
	}
	base, steered := map[string][]float64{}, map[string][]float64{}
	for _, j := range o.BaselineJobs {
		if !j.Finish.IsZero() {
			base[j.Class] = append(base[j.Class], j.Minutes())
		}
	}
	for _, j := range o.Steered {
		if !j.Finish.IsZero() {
			steered[j.Class] = append(steered[j.Class], j.Minutes())
		}
	}
	classes := map[string]bool{}
	for c := range base {
		classes[c] = true
	}
	for c := range steered {
		classes[c] = true
	}
	var rows []classRow
	maxV := 0.0
	for _, c := range slices.Sorted(maps.Keys(classes)) {
		r := classRow{Class: c, Base: quantiles(base[c]), Steered: quantiles(steered[c])}
		if r.Base.N > 0 && r.Steered.N > 0 && r.Base.P50 > 0 {
			r.Ratio, r.HasRatio = r.Steered.P50/r.Base.P50, true
		}
		rows = append(rows, r)
		maxV = math.Max(maxV, math.Max(r.Base.Max, r.Steered.Max))
	}
	tick := maxV / 300
	add := func(label string, q Quantiles, isBase bool) {
		if q.N == 0 {
			return
		}
		box.Labels = append(box.Labels, label)
		box.Whisk = append(box.Whisk, [2]float64{round3(q.Min), round3(q.P90)})
		box.Box = append(box.Box, [2]float64{round3(q.P25), round3(q.P75)})
		box.Median = append(box.Median, [2]float64{round3(q.P50 - tick), round3(q.P50 + tick)})
		box.Base = append(box.Base, isBase)
	}
	for _, r := range rows {
		add(r.Class+" · baseline", r.Base, true)
		add(r.Class+" · sidecar", r.Steered, false)
	}
	return rows, box
}

// quantiles of xs (linear interpolation between order statistics).
func quantiles(xs []float64) Quantiles {
	q := Quantiles{N: len(xs)}
	if len(xs) == 0 {
		return q
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	at := func(p float64) float64 {
		pos := p * float64(len(s)-1)
		i := int(pos)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (pos-float64(i))*(s[i+1]-s[i])
	}
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	q.Min, q.P25, q.P50, q.P75, q.P90, q.Max, q.Mean = s[0], at(0.25), at(0.5), at(0.75), at(0.9), s[len(s)-1], sum/float64(len(s))
	return q
}

// timeline lays out every job with a deadline: finished ones from submit to
// finish (met or missed), running ones from now to their predicted p90
// (on track or at risk), each with its deadline marked.
func timeline(st sidecar.Status, o *Outcomes, mins func(time.Time) float64) (timelineChart, goalCounts) {
	tl := timelineChart{Labels: []string{}, Run: [][2]float64{}, Status: []string{}, Deadline: [][2]float64{}, Baseline: []*[2]float64{}}
	var g goalCounts
	type row struct {
		label    string
		from, to float64
		status   string
		dl       float64
		base     *float64
	}
	var rows []row
	baseFinish := map[string]time.Time{}
	if o != nil {
		for _, j := range o.BaselineJobs {
			if j.Deadline == nil {
				continue
			}
			g.Show = true
			baseFinish[j.Name] = j.Finish
			if j.Met() {
				g.BaseMet++
			} else {
				g.BaseMissed++
			}
		}
		for _, j := range o.Steered {
			if j.Deadline == nil || j.Finish.IsZero() {
				continue
			}
			g.Show = true
			r := row{label: j.Name, from: mins(j.Submit), to: mins(j.Finish), dl: mins(*j.Deadline), status: "met"}
			if j.Met() {
				g.SteeredMet++
			} else {
				g.SteeredMissed++
				r.status = "missed"
			}
			if bf, ok := baseFinish[j.Name]; ok && !bf.IsZero() {
				b := mins(bf)
				r.base = &b
			}
			rows = append(rows, r)
		}
	}
	for _, j := range st.Jobs {
		if j.Deadline == nil {
			continue
		}
		g.Show = true
		r := row{label: j.Name, from: mins(st.Time), to: mins(st.Time), dl: mins(*j.Deadline), status: "on track"}
		if j.P90 != nil {
			r.to = mins(*j.P90)
		}
		if j.Verdict != "" && j.Verdict != "on track" {
			r.status = "at risk"
			g.AtRisk++
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].dl < rows[j].dl })
	tick := 0.0
	for _, r := range rows {
		tick = math.Max(tick, r.to/400)
	}
	for _, r := range rows {
		tl.Labels = append(tl.Labels, r.label)
		tl.Run = append(tl.Run, [2]float64{r.from, r.to})
		tl.Status = append(tl.Status, r.status)
		tl.Deadline = append(tl.Deadline, [2]float64{r.dl - tick, r.dl + tick})
		var b *[2]float64
		if r.base != nil {
			b = &[2]float64{*r.base - tick, *r.base + tick}
		}
		tl.Baseline = append(tl.Baseline, b)
	}
	return tl, g
}

// queueChurn is how often the plans changed one queue, and how many of
// those changes undid the queue's previous change of the same property
// (a → b then b → a): the flapping an admin should see before trusting it.
type queueChurn struct {
	Queue    string
	Changes  int
	Reversed int
}

func churn(plans []sidecar.PlanRecord) []queueChurn {
	type last struct{ from, to string }
	prev := map[[2]string]last{}
	by := map[string]*queueChurn{}
	for _, p := range plans {
		if p.Result != act.ResultApplied && p.Result != act.ResultDryRun {
			continue
		}
		for _, c := range p.Changes {
			if c.Queue == "" {
				continue
			}
			q := by[c.Queue]
			if q == nil {
				q = &queueChurn{Queue: c.Queue}
				by[c.Queue] = q
			}
			k := [2]string{c.Queue, c.Property}
			if l, ok := prev[k]; ok && l.from == c.To && l.to == c.From {
				q.Reversed++
			}
			prev[k] = last{c.From, c.To}
			q.Changes++
		}
	}
	out := []queueChurn{}
	for _, k := range slices.Sorted(maps.Keys(by)) {
		out = append(out, *by[k])
	}
	return out
}

// explain turns one plan into a sentence per queue and the global changes'
// reasons, keeping the raw property diff for the disclosure.
func explain(p sidecar.PlanRecord) cycleWhy {
	cw := cycleWhy{Time: p.Time, Result: p.Result, Changes: p.Changes, Error: p.Error}
	type qchg struct {
		caps   []string
		home   string
		moved  bool
		reason string
		limit  bool
	}
	by := map[string]*qchg{}
	var order []string
	for _, c := range p.Changes {
		if c.Queue == "" {
			if c.Reason != "" {
				cw.Sentences = append(cw.Sentences, fmt.Sprintf("Scheduler-wide: %s → %s: %s.", strings.TrimPrefix(c.Property, "yarn.scheduler.capacity."), orUnset(c.To), c.Reason))
			}
			continue
		}
		q := by[c.Queue]
		if q == nil {
			q = &qchg{}
			by[c.Queue] = q
			order = append(order, c.Queue)
		}
		if q.reason == "" {
			q.reason = strings.TrimSpace(c.Reason[strings.Index(c.Reason, ":")+1:])
		}
		q.limit = q.limit || c.Limited
		switch {
		case c.Property == "default-node-label-expression":
			q.home, q.moved = c.To, true
		case c.Property == "capacity" || (strings.HasPrefix(c.Property, "accessible-node-labels.") && strings.HasSuffix(c.Property, ".capacity") && !strings.HasSuffix(c.Property, "maximum-capacity")):
			part := ""
			if c.Property != "capacity" {
				part = strings.TrimSuffix(strings.TrimPrefix(c.Property, "accessible-node-labels."), ".capacity")
			}
			q.caps = append(q.caps, fmt.Sprintf("%s %s→%s%%", partitionName(part), orUnset(c.From), orUnset(c.To)))
		}
	}
	for _, name := range order {
		q := by[name]
		var parts []string
		if len(q.caps) > 0 {
			s := "guarantee " + strings.Join(q.caps, ", ")
			if q.limit {
				s += " (step-limited)"
			}
			parts = append(parts, s)
		}
		if q.moved {
			if q.home == "" {
				parts = append(parts, "its home moved back to the default partition")
			} else {
				parts = append(parts, "its home moved to "+q.home)
			}
		}
		if len(parts) == 0 {
			parts = append(parts, "limits adjusted")
		}
		s := strings.TrimPrefix(name, "root.") + ": " + strings.Join(parts, "; ")
		if q.reason != "" {
			s += " — " + q.reason
		}
		cw.Sentences = append(cw.Sentences, s+".")
	}
	return cw
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

func partitionName(p string) string {
	if p == "" {
		return "default"
	}
	return p
}

// fmtMinutes prints minutes as "5m", "2m05s" or "1h05m": seconds matter
// for jobs of a few minutes, not for hours.
func fmtMinutes(m float64) string {
	d := time.Duration(m * float64(time.Minute))
	if d >= time.Hour {
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	d = d.Round(time.Second)
	if s := int(d.Seconds()) % 60; s != 0 {
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), s)
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}

// heatColor maps a rate ratio to a background colour: white at 1×, deeper
// green for faster, deeper red for slower (log scale), grey when unknown.
func heatColor(r sidecar.RateStatus) template.CSS {
	if !r.Known || r.Ratio <= 0 {
		return "background:#e5e7eb;color:#6b7280"
	}
	x := math.Max(-1, math.Min(1, math.Log2(r.Ratio)/2)) // ±4× saturates
	if x >= 0 {
		g := 255 - int(x*120)
		return template.CSS(fmt.Sprintf("background:rgb(%d,255,%d)", g, g))
	}
	g := 255 + int(x*120)
	return template.CSS(fmt.Sprintf("background:rgb(255,%d,%d)", g, g))
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
