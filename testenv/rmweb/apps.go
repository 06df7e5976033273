package rmweb

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

func (h *handler) toAppInfo(a App, r *http.Request, ds deSelects) appInfo {
	elapsed := int64(0)
	if !a.StartedTime.IsZero() {
		end := h.s.Now()
		if !a.FinishedTime.IsZero() {
			end = a.FinishedTime
		}
		elapsed = end.Sub(a.StartedTime).Milliseconds()
	}
	tracking := "http://" + h.trackingHost(a, r) + "/proxy/" + a.ID + "/"
	ui := "ApplicationMaster"
	if !a.FinishedTime.IsZero() {
		ui = "History"
	}
	info := appInfo{ID: a.ID, User: a.User, Name: a.Name, Queue: h.o.appQueue(a.Queue), State: a.State, FinalStatus: a.FinalStatus,
		Progress: a.Progress, TrackingUI: ui, TrackingURL: tracking, ClusterID: h.o.ClusterTimestamp, ApplicationType: a.ApplicationType,
		ApplicationTags: strings.Join(a.Tags, ","), Priority: a.Priority, StartedTime: ms(a.StartedTime), LaunchTime: ms(a.LaunchTime),
		FinishedTime: ms(a.FinishedTime), ElapsedTime: elapsed, AMHostHTTPAddress: a.AMHostHTTPAddress, MasterNodeID: a.AMNodeID,
		AllocatedMB: a.Allocated.MemoryMB, AllocatedVCores: a.Allocated.VCores, RunningContainers: a.RunningContainers,
		LogAggregationStatus: "DISABLED", AppNodeLabelExpression: a.NodeLabelExpression,
		// The AM's request carries the app's expression, else the queue's
		// default (recorded: "gpu" for a job routed by its queue).
		AMNodeLabelExpression: &a.AMLabelExpression}
	if ds["timeouts"] {
		info.Timeouts = nil
	} else {
		info.Timeouts = map[string]any{"timeout": []map[string]any{{"type": "LIFETIME", "expiryTime": "UNLIMITED", "remainingTimeInSeconds": -1}}}
	}
	if ds["appNodeLabelExpression"] {
		info.AppNodeLabelExpression = ""
	}
	if ds["amNodeLabelExpression"] {
		info.AMNodeLabelExpression = nil
	}
	info.PreemptedResourceSecondsMap = map[string]any{}
	info.ResourceSecondsMap = map[string]any{"entry": []map[string]string{{"key": "memory-mb", "value": strconv.FormatInt(a.MemorySeconds, 10)},
		{"key": "vcores", "value": strconv.FormatInt(a.VcoreSeconds, 10)}}}
	info.MemorySeconds, info.VcoreSeconds = a.MemorySeconds, a.VcoreSeconds
	if a.FinishedTime.IsZero() && a.ByPartition != nil {
		if !ds["resourceInfo"] {
			info.ResourceInfo = map[string]any{"resourceUsagesByPartition": appPartitionUsages(a)}
		}
		if !ds["resourceRequests"] {
			info.ResourceRequests = appResourceRequests(a)
		}
	}
	if a.AMHostHTTPAddress != "" {
		// The AM's RPC port is ephemeral on a real NM; a stand-in here.
		host, _, _ := strings.Cut(a.AMHostHTTPAddress, ":")
		info.AMRPCAddress = host + ":37139"
	}
	pr := a.Preempted
	info.PreemptedResourceMB, info.PreemptedResourceVCores = pr.MemoryMB, pr.VCores
	info.NumNonAMContainerPreempted, info.NumAMContainerPreempted = pr.NonAMContainers, pr.AMContainers
	info.PreemptedMemorySeconds, info.PreemptedVcoreSeconds = pr.MemorySeconds, pr.VcoreSeconds
	if pr.NonAMContainers+pr.AMContainers > 0 {
		info.PreemptedResourceSecondsMap = map[string]any{"entry": []map[string]string{{"key": "memory-mb", "value": strconv.FormatInt(pr.MemorySeconds, 10)},
			{"key": "vcores", "value": strconv.FormatInt(pr.VcoreSeconds, 10)}}}
	}
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
	ds, err := parseDeSelects(r)
	if err != nil {
		badRequest(w, err.Error())
		return
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
		out = append(out, h.toAppInfo(a, r, ds))
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
		ds, err := parseDeSelects(r)
		if err != nil {
			badRequest(w, err.Error())
			return
		}
		writeJSON(w, map[string]any{"app": h.toAppInfo(a, r, ds)})
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
		att := map[string]any{
			"id": 1, "appAttemptId": a.AttemptID, "startTime": ms(a.LaunchTime), "finishedTime": ms(a.FinishedTime),
			"containerId": a.AMContainerID, "nodeHttpAddress": a.AMHostHTTPAddress, "nodeId": a.AMNodeID, "logsLink": logs,
			"blacklistedNodes": "", "nodesBlacklistedBySystem": "", "exportPorts": "null"}
		if !h.o.is33() { // AppAttemptInfo.appAttemptState arrived after 3.3
			att["appAttemptState"] = a.State
		}
		writeJSON(w, map[string]any{"appAttempts": map[string]any{"appAttempt": []map[string]any{att}}})
	case parts[1] == "appattempts" && len(parts) == 4 && parts[3] == "containers":
		h.containers(w, r, a)
	default:
		notFound(w, "no resource "+r.URL.Path)
	}
}

// containers serves apps/{id}/appattempts/{attempt}/containers: the running
// containers and the nodes they are on (the AM's own included). As
// recorded: the root is dropped, one container is an object, none is {},
// every number is a string and nodeHttpAddress carries the scheme.
func (h *handler) containers(w http.ResponseWriter, r *http.Request, a App) {
	now := ms(h.s.Now())
	str := func(n int64) string { return strconv.FormatInt(n, 10) }
	container := func(id, nodeID, httpAddr string, size Resource, priority int, started int64) map[string]any {
		return map[string]any{"containerId": id, "allocatedMB": str(size.MemoryMB), "allocatedVCores": str(size.VCores),
			"assignedNodeId": nodeID, "priority": str(int64(priority)), "startedTime": str(started), "finishedTime": "0",
			"elapsedTime": str(now - started), "logUrl": "http://" + httpAddr + "/node/containerlogs/" + id + "/" + a.User,
			"containerExitStatus": "0", "containerState": "RUNNING", "nodeHttpAddress": "http://" + httpAddr, "nodeId": nodeID,
			"allocatedResources": map[string]any{"entry": []map[string]string{{"key": "memory-mb", "value": str(size.MemoryMB)},
				{"key": "vcores", "value": str(size.VCores)}}},
			"exposedPorts": ""}
	}
	var out []map[string]any
	if a.FinishedTime.IsZero() {
		if a.AMNodeID != "" {
			out = append(out, container(a.AMContainerID, a.AMNodeID, a.AMHostHTTPAddress, a.AMResource, 0, ms(a.LaunchTime)))
		}
		if j, ok := h.s.Job(a.ID); ok {
			for _, t := range j.Tasks {
				for _, at := range t.Attempts {
					if at.State != "RUNNING" {
						continue
					}
					// MRApp's priorities: maps 20, reduces 10.
					prio := 20
					if at.Type == "REDUCE" {
						prio = 10
					}
					out = append(out, container(at.ContainerID, at.NodeID, at.NodeHTTPAddress, at.Allocated, prio, ms(at.StartTime)))
				}
			}
		}
	}
	body := map[string]any{}
	if v := jerseyList(out); v != nil {
		body["container"] = v
	}
	writeJSON(w, body)
}

func (h *handler) appPriority(w http.ResponseWriter, r *http.Request, a App) {
	if r.Method == http.MethodGet {
		writeJSON(w, map[string]any{"priority": a.Priority})
		return
	}
	if !method(w, r, http.MethodPut) || !h.authorizeWrite(w, r, false) {
		return
	}
	// AppPriority's priority is a Java int and Jersey drops keys it does
	// not know: a body without "priority" sets 0 (RMWebServices
	// .updateApplicationPriority; documented, not recorded). A body Jersey
	// cannot read at all is a 400.
	var body struct {
		Priority int `json:"priority"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body); err != nil {
		plain(w, http.StatusBadRequest, fmt.Sprintf("Invalid priority body for %s: want {\"priority\":N}", a.ID))
		return
	}
	got, err := h.s.SetAppPriority(a.ID, body.Priority)
	if err != nil {
		plain(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, map[string]any{"priority": got})
}

func (h *handler) appQueue(w http.ResponseWriter, r *http.Request, a App) {
	if r.Method == http.MethodGet {
		writeJSON(w, map[string]any{"queue": h.o.appQueue(a.Queue)})
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

// appPartitionUsages is resourceInfo.resourceUsagesByPartition of a running
// app: the default partition always, then every partition the app uses,
// asks for or runs its AM in (recorded).
func appPartitionUsages(a App) []map[string]any {
	parts := []string{""}
	for p, u := range a.ByPartition {
		if p != "" && (u.Used != (Resource{}) || u.Pending != (Resource{}) || u.AMUsed != (Resource{})) {
			parts = append(parts, p)
		}
	}
	sort.Strings(parts[1:])
	out := make([]map[string]any, 0, len(parts))
	for _, p := range parts {
		u := a.ByPartition[p]
		// amLimit and userAmLimit are 0 in an app's view (recorded).
		out = append(out, map[string]any{"partitionName": p, "used": toResourceInfo(u.Used), "reserved": toResourceInfo(Resource{}),
			"pending": toResourceInfo(u.Pending), "amUsed": toResourceInfo(u.AMUsed), "amLimit": toResourceInfo(Resource{}),
			"userAmLimit": toResourceInfo(Resource{})})
	}
	return out
}

// deSelects are the app fields ?deSelects= leaves out (RMWebServices'
// DeSelectFields): resourceRequests (YARN-6280), timeouts,
// appNodeLabelExpression, amNodeLabelExpression and resourceInfo
// (YARN-6871). Each comma-separated literal must name one of them,
// matched case-insensitively and untrimmed, else the request is a 400.
type deSelects map[string]bool

var deSelectFields = []string{"resourceRequests", "timeouts", "appNodeLabelExpression", "amNodeLabelExpression", "resourceInfo"}

func parseDeSelects(r *http.Request) (deSelects, error) {
	ds := deSelects{}
	for _, v := range r.URL.Query()["deSelects"] {
		if strings.TrimSpace(v) == "" {
			continue
		}
		for _, lit := range strings.Split(v, ",") {
			if strings.TrimSpace(lit) == "" {
				continue
			}
			known := ""
			for _, f := range deSelectFields {
				if strings.EqualFold(f, lit) {
					known = f
				}
			}
			if known == "" {
				return nil, fmt.Errorf("Invalid deSelects string %s specified. It should be one of [%s]", strings.TrimSpace(lit), strings.Join(deSelectFields, ", "))
			}
			ds[known] = true
		}
	}
	return ds, nil
}

// appResourceRequests are a running app's outstanding asks. The real MR AM
// asks at host, rack and "*" level (recorded: three entries of the same
// count); the mini cluster's asks have no locality, so only the "*" entry
// is served, one per partition asked in.
func appResourceRequests(a App) []map[string]any {
	var out []map[string]any
	for _, p := range sortedPartitions(a.ByPartition) {
		u := a.ByPartition[p]
		if u.PendingContainers == 0 {
			continue
		}
		n := int64(u.PendingContainers)
		size := Resource{MemoryMB: u.Pending.MemoryMB / n, VCores: u.Pending.VCores / n, GPUs: u.Pending.GPUs / n}
		out = append(out, map[string]any{"priority": 20, "allocationRequestId": -1, "resourceName": "*", "capability": toResourceInfo(size),
			"numContainers": u.PendingContainers, "relaxLocality": true, "nodeLabelExpression": p,
			"executionTypeRequest": map[string]any{"executionType": "GUARANTEED", "enforceExecutionType": true}})
	}
	return out
}

func sortedPartitions(m map[string]QueueUsage) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

var validAppStates = map[string]bool{"NEW": true, "NEW_SAVING": true, "SUBMITTED": true, "ACCEPTED": true,
	"RUNNING": true, "FINISHED": true, "FAILED": true, "KILLED": true}
