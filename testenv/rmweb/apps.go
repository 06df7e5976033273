package rmweb

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

func (h *handler) toAppInfo(a App, r *http.Request) appInfo {
	elapsed := int64(0)
	if !a.StartedTime.IsZero() {
		end := h.s.Now()
		if !a.FinishedTime.IsZero() {
			end = a.FinishedTime
		}
		elapsed = end.Sub(a.StartedTime).Milliseconds()
	}
	tracking := "http://" + r.Host + "/proxy/" + a.ID + "/"
	ui := "ApplicationMaster"
	if !a.FinishedTime.IsZero() {
		ui = "History"
	}
	info := appInfo{ID: a.ID, User: a.User, Name: a.Name, Queue: strings.TrimPrefix(a.Queue, "root."), State: a.State, FinalStatus: a.FinalStatus,
		Progress: a.Progress, TrackingUI: ui, TrackingURL: tracking, ClusterID: h.o.ClusterTimestamp, ApplicationType: a.ApplicationType,
		ApplicationTags: strings.Join(a.Tags, ","), Priority: a.Priority, StartedTime: ms(a.StartedTime), LaunchTime: ms(a.LaunchTime),
		FinishedTime: ms(a.FinishedTime), ElapsedTime: elapsed, AMHostHTTPAddress: a.AMHostHTTPAddress, MasterNodeID: a.AMNodeID,
		AllocatedMB: a.Allocated.MemoryMB, AllocatedVCores: a.Allocated.VCores, RunningContainers: a.RunningContainers,
		ResourceSecondsMap:   map[string]any{"entry": map[string]any{"key": "memory-mb", "value": "0"}},
		LogAggregationStatus: "DISABLED", AppNodeLabelExpression: a.NodeLabelExpression,
		// The AM's request carries the app's expression ("" for none; the RM
		// normalizes a missing one to the empty partition).
		AMNodeLabelExpression: a.NodeLabelExpression}
	pr := a.Preempted
	info.PreemptedResourceMB, info.PreemptedResourceVCores = pr.MemoryMB, pr.VCores
	info.NumNonAMContainerPreempted, info.NumAMContainerPreempted = pr.NonAMContainers, pr.AMContainers
	info.PreemptedMemorySeconds, info.PreemptedVcoreSeconds = pr.MemorySeconds, pr.VcoreSeconds
	// Jersey renders the two-entry map as an object with a repeated
	// "entry" key; one entry is what a Go map can carry.
	info.PreemptedResourceSecsMap = map[string]any{"entry": map[string]any{"key": "memory-mb", "value": strconv.FormatInt(pr.MemorySeconds, 10)}}
	if a.AMHostHTTPAddress != "" && a.AMContainerID != "" {
		info.AMContainerLogs = "http://" + a.AMHostHTTPAddress + "/node/containerlogs/" + a.AMContainerID + "/" + a.User
	}
	return info
}

// apps serves /ws/v1/cluster/apps with the states, state, queue, user,
// applicationTags and limit filters.
func (h *handler) apps(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	states := map[string]bool{}
	for _, v := range append(q["states"], q["state"]...) {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(strings.ToUpper(s)); s != "" {
				if !validAppStates[s] {
					// RMWebServices.getApps → WebServices.parseQueries.
					badRequest(w, "Invalid application-state "+s+" specified. It should be one of NEW, NEW_SAVING, SUBMITTED, ACCEPTED, RUNNING, FINISHED, FAILED, KILLED")
					return
				}
				states[s] = true
			}
		}
	}
	limit := -1
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			badRequest(w, "limit value must be an integer: "+l)
			return
		}
		limit = n
	}
	queue := q.Get("queue")
	userF := q.Get("user")
	tags := map[string]bool{}
	for _, t := range strings.Split(q.Get("applicationTags"), ",") {
		if t = strings.TrimSpace(strings.ToLower(t)); t != "" {
			tags[t] = true
		}
	}
	var out []appInfo
	for _, a := range h.s.Apps() {
		if len(states) > 0 && !states[a.State] {
			continue
		}
		if queue != "" && a.Queue != queue && strings.TrimPrefix(a.Queue, "root.") != strings.TrimPrefix(queue, "root.") {
			continue
		}
		if userF != "" && a.User != userF {
			continue
		}
		if len(tags) > 0 {
			match := false
			for _, t := range a.Tags {
				match = match || tags[strings.ToLower(t)]
			}
			if !match {
				continue
			}
		}
		out = append(out, h.toAppInfo(a, r))
		if limit >= 0 && len(out) >= limit {
			break
		}
	}
	if len(out) == 0 {
		writeJSON(w, map[string]any{"apps": nil}) // Hadoop answers "apps": null when empty
		return
	}
	var body struct {
		Apps struct {
			App []appInfo `json:"app"`
		} `json:"apps"`
	}
	body.Apps.App = out
	writeJSON(w, body)
}

// app serves /ws/v1/cluster/apps/{id} and its sub-resources.
func (h *handler) app(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/ws/v1/cluster/apps/"), "/"), "/")
	a, ok := h.s.App(parts[0])
	if !ok {
		notFound(w, "app with id: "+parts[0]+" not found")
		return
	}
	switch {
	case len(parts) == 1:
		writeJSON(w, map[string]any{"app": h.toAppInfo(a, r)})
	case parts[1] == "state" && len(parts) == 2:
		writeJSON(w, map[string]any{"state": a.State})
	case parts[1] == "priority" && len(parts) == 2:
		h.appPriority(w, r, a)
	case parts[1] == "queue" && len(parts) == 2:
		h.appQueue(w, r, a)
	case parts[1] == "appattempts" && len(parts) == 2:
		logs := "" // AppAttemptInfo.logsLink: the AM container's NM log page
		if a.AMHostHTTPAddress != "" && a.AMContainerID != "" {
			logs = "http://" + a.AMHostHTTPAddress + "/node/containerlogs/" + a.AMContainerID + "/" + a.User
		}
		writeJSON(w, map[string]any{"appAttempts": map[string]any{"appAttempt": []map[string]any{{
			"id": 1, "appAttemptId": a.AttemptID, "startTime": ms(a.LaunchTime), "finishedTime": ms(a.FinishedTime),
			"containerId": a.AMContainerID, "nodeHttpAddress": a.AMHostHTTPAddress, "nodeId": a.AMNodeID, "logsLink": logs,
			"appAttemptState": a.State}}}})
	case parts[1] == "appattempts" && len(parts) == 4 && parts[3] == "containers":
		h.containers(w, r, a)
	default:
		notFound(w, "no resource "+r.URL.Path)
	}
}

// containers serves apps/{id}/appattempts/{attempt}/containers: the running
// containers and the nodes they are on (the AM's own included).
func (h *handler) containers(w http.ResponseWriter, r *http.Request, a App) {
	var out []map[string]any
	if a.AMNodeID != "" && a.FinishedTime.IsZero() {
		out = append(out, map[string]any{"containerId": a.AMContainerID, "allocatedMB": 1536, "allocatedVCores": 1,
			"assignedNodeId": a.AMNodeID, "priority": 0, "startedTime": ms(a.LaunchTime), "containerState": "RUNNING",
			"nodeHttpAddress": "http://" + a.AMHostHTTPAddress, "nodeId": a.AMNodeID})
	}
	if j, ok := h.s.Job(a.ID); ok {
		for _, t := range j.Tasks {
			for _, at := range t.Attempts {
				if at.State != "RUNNING" {
					continue
				}
				host, _, _ := strings.Cut(at.NodeHTTPAddress, ":")
				out = append(out, map[string]any{"containerId": at.ContainerID, "assignedNodeId": host + ":8041", "nodeId": host + ":8041",
					"priority": 20, "startedTime": ms(at.StartTime), "containerState": "RUNNING", "nodeHttpAddress": "http://" + at.NodeHTTPAddress})
			}
		}
	}
	writeJSON(w, map[string]any{"containers": map[string]any{"container": out}})
}

func (h *handler) appPriority(w http.ResponseWriter, r *http.Request, a App) {
	if r.Method == http.MethodGet {
		writeJSON(w, map[string]any{"priority": a.Priority})
		return
	}
	if !method(w, r, http.MethodPut) || !h.authorizeWrite(w, r, false) {
		return
	}
	var body struct {
		Priority *int `json:"priority"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body); err != nil || body.Priority == nil {
		plain(w, http.StatusBadRequest, fmt.Sprintf("Invalid priority body for %s: want {\"priority\":N}", a.ID))
		return
	}
	got, err := h.s.SetAppPriority(a.ID, *body.Priority)
	if err != nil {
		plain(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, map[string]any{"priority": got})
}

func (h *handler) appQueue(w http.ResponseWriter, r *http.Request, a App) {
	if r.Method == http.MethodGet {
		writeJSON(w, map[string]any{"queue": strings.TrimPrefix(a.Queue, "root.")})
		return
	}
	if !method(w, r, http.MethodPut) || !h.authorizeWrite(w, r, false) {
		return
	}
	var body struct {
		Queue string `json:"queue"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body); err != nil || body.Queue == "" {
		plain(w, http.StatusBadRequest, "Invalid queue body: want {\"queue\":\"name\"}")
		return
	}
	if err := h.s.MoveApp(a.ID, body.Queue); err != nil {
		plain(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, map[string]any{"queue": body.Queue})
}

var validAppStates = map[string]bool{"NEW": true, "NEW_SAVING": true, "SUBMITTED": true, "ACCEPTED": true,
	"RUNNING": true, "FINISHED": true, "FAILED": true, "KILLED": true}
