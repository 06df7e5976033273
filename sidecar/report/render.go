package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
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
	"heat": heatColor,
}).Parse(pageTemplate))

// Options tune a rendering.
type Options struct {
	Title string
	// Generated is the time printed as "generated at" (passed in: no clock).
	Generated time.Time
}

// heatRow is one class of the CR heatmap.
type heatRow struct {
	Class string
	Cells []sidecar.RateStatus
}

type view struct {
	Options
	Status   sidecar.Status
	Types    []string
	Heat     []heatRow
	Queues   map[string][]sidecar.JobStatus
	QNames   []string
	ChartJS  template.JS
	DataJSON template.JS
}

// chartData is what the page's script turns into charts.
type chartData struct {
	PS   psChart    `json:"ps"`
	CDFs []cdfChart `json:"cdfs"`
}

type psChart struct {
	Labels []string              `json:"labels"`
	Jobs   map[string][]*float64 `json:"jobs"`
	Sum    []float64             `json:"sum"`
	Bound  []float64             `json:"bound"`
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
	v := view{Options: opts, Status: st, ChartJS: template.JS(chartJS), Queues: map[string][]sidecar.JobStatus{}}

	types := map[string]bool{}
	byClass := map[string]map[string]sidecar.RateStatus{}
	for _, r := range st.Rates {
		types[r.NodeType] = true
		if byClass[r.Class] == nil {
			byClass[r.Class] = map[string]sidecar.RateStatus{}
		}
		byClass[r.Class][r.NodeType] = r
	}
	for t := range types {
		v.Types = append(v.Types, t)
	}
	sort.Strings(v.Types)
	classes := make([]string, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
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
	for q := range v.Queues {
		v.QNames = append(v.QNames, q)
	}
	sort.Strings(v.QNames)

	data := chartData{PS: psChart{Jobs: map[string][]*float64{}}}
	for i, h := range st.History {
		data.PS.Labels = append(data.PS.Labels, h.Time.UTC().Format("15:04:05"))
		data.PS.Sum = append(data.PS.Sum, round3(h.SumPS))
		data.PS.Bound = append(data.PS.Bound, round3(h.Bound))
		for app, ps := range h.Jobs {
			if data.PS.Jobs[app] == nil {
				data.PS.Jobs[app] = make([]*float64, len(st.History))
			}
			x := round3(ps)
			data.PS.Jobs[app][i] = &x
		}
	}
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
