package sparkweb

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// HistoryServer serves /api/v1 for finished apps, as Spark's History
// Server does. Apps run in YARN cluster mode, so each has attempt "1",
// and an app's resources are under /applications/<id>/1/...: asked
// without the attempt the History Server finds no UI ("no such app").
func HistoryServer(s State) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/api/v1/")
		if !ok || r.Method != http.MethodGet {
			notFound(w, "no resource "+r.URL.Path)
			return
		}
		segs := strings.Split(strings.Trim(rest, "/"), "/")
		if segs[0] != "applications" {
			notFound(w, "no resource "+r.URL.Path)
			return
		}
		if len(segs) == 1 {
			listApps(w, r, s)
			return
		}
		a, ok := s.SparkApp(segs[1])
		if !ok || a.End.IsZero() {
			notFound(w, "unknown app: "+segs[1])
			return
		}
		if len(segs) == 2 {
			writeJSON(w, applicationInfo(a, s.Now()))
			return
		}
		if segs[2] != "1" {
			if isResource(segs[2]) {
				notFound(w, "no such app: "+segs[1])
			} else {
				notFound(w, fmt.Sprintf("unknown app %s, attempt %s", segs[1], segs[2]))
			}
			return
		}
		serveApp(w, r, a, segs[3:], s.Now(), true)
	})
}

// DriverUI serves a running app's driver UI as reached through the RM
// web proxy (/proxy/<appId>/...). A finished app's proxy redirects to
// the History Server (spark.yarn.historyServer.address is the app's
// final tracking URL), as YARN's proxy does; "" is the host the request
// came to.
func DriverUI(s State, historyAddress string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		historyAddress := historyAddress
		if historyAddress == "" {
			historyAddress = r.Host
		}
		rest := strings.TrimPrefix(r.URL.Path, "/proxy/")
		appID, path, _ := strings.Cut(rest, "/")
		a, ok := s.SparkApp(appID)
		if !ok {
			notFound(w, "unknown app: "+appID)
			return
		}
		if !a.End.IsZero() {
			loc := "http://" + historyAddress + "/history/" + appID + "/1/" + strings.TrimPrefix(path, "api/v1/applications/"+appID+"/")
			w.Header().Set("Location", loc)
			w.Header().Set("Content-Type", "text/html;charset=utf-8")
			w.WriteHeader(http.StatusFound)
			fmt.Fprintf(w, "<html><body>Moved <a href=%q>here</a></body></html>\n", loc)
			return
		}
		rest, ok = strings.CutPrefix(path, "api/v1/")
		if !ok || r.Method != http.MethodGet {
			notFound(w, "no resource /"+path)
			return
		}
		segs := strings.Split(strings.Trim(rest, "/"), "/")
		if segs[0] != "applications" || len(segs) < 2 {
			notFound(w, "no resource /"+path)
			return
		}
		if segs[1] != appID {
			notFound(w, "unknown app: "+segs[1])
			return
		}
		segs = segs[2:]
		if len(segs) == 0 {
			writeJSON(w, applicationInfo(a, s.Now()))
			return
		}
		if !isResource(segs[0]) { // an attempt id
			if segs[0] != "1" {
				notFound(w, fmt.Sprintf("unknown app %s, attempt %s", appID, segs[0]))
				return
			}
			segs = segs[1:]
		}
		serveApp(w, r, a, segs, s.Now(), false)
	})
}

var resources = map[string]bool{"jobs": true, "executors": true, "allexecutors": true, "stages": true, "allmiscellaneousprocess": true,
	"storage": true, "environment": true, "logs": true, "sql": true}

func isResource(s string) bool { return resources[s] }

// serveApp serves an app attempt's resources.
func serveApp(w http.ResponseWriter, r *http.Request, a App, segs []string, now time.Time, history bool) {
	q := r.URL.Query()
	if len(segs) == 0 {
		writeJSON(w, applicationInfo(a, now)["attempts"].([]obj)[0])
		return
	}
	switch segs[0] {
	case "jobs":
		if len(segs) == 1 {
			writeJSON(w, []obj{jobData(a)})
			return
		}
	case "executors", "allexecutors":
		if len(segs) == 1 {
			out := []obj{driverSummary(a, now)}
			for _, e := range a.Executors {
				if segs[0] == "allexecutors" || e.Remove.IsZero() {
					out = append(out, executorSummary(a, e))
				}
			}
			writeJSON(w, out)
			return
		}
	case "allmiscellaneousprocess":
		if len(segs) == 1 {
			writeJSON(w, []obj{yarnAM(a)})
			return
		}
	case "stages":
		serveStages(w, q, a, segs[1:], now)
		return
	}
	notFound(w, "no resource "+r.URL.Path)
}

func serveStages(w http.ResponseWriter, q map[string][]string, a App, segs []string, now time.Time) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if len(segs) == 0 {
		status := strings.ToUpper(get("status"))
		switch status {
		case "", "ACTIVE", "COMPLETE", "PENDING", "FAILED", "SKIPPED":
		default:
			badParam(w, "status", get("status"))
			return
		}
		details := get("details") == "true"
		out := []obj{}
		// Newest stage first, as Spark lists them.
		for i := len(a.Stages) - 1; i >= 0; i-- {
			if st := a.Stages[i]; status == "" || st.Status == status {
				out = append(out, stageData(a, st, now, details))
			}
		}
		writeJSON(w, out)
		return
	}
	id, err := strconv.Atoi(segs[0])
	if err != nil {
		notFound(w, "unknown stage: "+segs[0])
		return
	}
	var st *Stage
	for i := range a.Stages {
		if a.Stages[i].ID == id {
			st = &a.Stages[i]
		}
	}
	if st == nil {
		notFound(w, fmt.Sprintf("unknown stage: %d", id))
		return
	}
	if len(segs) == 1 {
		writeJSON(w, []obj{stageData(a, *st, now, true)})
		return
	}
	att, err := strconv.Atoi(segs[1])
	if err != nil || att != st.Attempt {
		notFound(w, fmt.Sprintf("unknown attempt for stage %d.  Found attempts: [%d]", id, st.Attempt))
		return
	}
	switch {
	case len(segs) == 2:
		writeJSON(w, stageData(a, *st, now, true))
	case len(segs) == 3 && segs[2] == "taskList":
		taskList(w, get, *st, now)
	case len(segs) == 3 && segs[2] == "taskSummary":
		taskSummary(w, get, *st, now)
	default:
		notFound(w, "no resource "+strings.Join(segs, "/"))
	}
}

// taskList pages a stage attempt's tasks: offset (0), length (20),
// sortBy ID | INCREASING_RUNTIME (runtime) | DECREASING_RUNTIME (-runtime),
// names matched case-insensitively (TaskSorting).
func taskList(w http.ResponseWriter, get func(string) string, st Stage, now time.Time) {
	offset, length := 0, 20
	for k, into := range map[string]*int{"offset": &offset, "length": &length} {
		if v := get(k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				badParam(w, k, v)
				return
			}
			*into = n
		}
	}
	tasks := append([]Task(nil), st.Tasks...)
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].TaskID < tasks[j].TaskID })
	switch strings.ToUpper(get("sortBy")) {
	case "", "ID":
	case "INCREASING_RUNTIME", "RUNTIME":
		sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].RunMs < tasks[j].RunMs })
	case "DECREASING_RUNTIME", "-RUNTIME":
		sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].RunMs > tasks[j].RunMs })
	default:
		badParam(w, "sortBy", get("sortBy"))
		return
	}
	out := []obj{}
	for i := offset; i < len(tasks) && i < offset+length; i++ {
		out = append(out, taskData(tasks[i], now))
	}
	writeJSON(w, out)
}

func listApps(w http.ResponseWriter, r *http.Request, s State) {
	q := r.URL.Query()
	limit := -1
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			badParam(w, "limit", v)
			return
		}
		limit = n
	}
	switch strings.ToLower(q.Get("status")) {
	case "", "completed":
	case "running":
		writeJSON(w, []obj{}) // in-progress apps are not listed (package comment)
		return
	default:
		badParam(w, "status", q.Get("status"))
		return
	}
	dates, bad := parseDateRange(q)
	if bad != "" {
		w.Header().Set("Content-Type", "text/plain;charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "Couldn't parse date: %s\n", bad)
		return
	}
	apps := s.SparkApps()
	// Newest first, as the History Server sorts by end time.
	sort.SliceStable(apps, func(i, j int) bool { return apps[i].End.After(apps[j].End) })
	out := []obj{}
	for _, a := range apps {
		if a.End.IsZero() || !dates.holds(a) || (limit >= 0 && len(out) >= limit) {
			continue
		}
		out = append(out, applicationInfo(a, s.Now()))
	}
	writeJSON(w, out)
}

// Spark's REST errors are plain text (Jersey's WebApplicationException
// with the message as entity).
func notFound(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain;charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintln(w, msg)
}

func badParam(w http.ResponseWriter, name, value string) {
	w.Header().Set("Content-Type", "text/plain;charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(w, "Bad value for parameter %q.  Expected a valid value, got %q\n", name, value)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
