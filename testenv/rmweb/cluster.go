package rmweb

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// info serves /ws/v1/cluster/info.
func (h *handler) info(w http.ResponseWriter, r *http.Request) {
	ha := h.o.HAState
	if ha == "" {
		ha = "ACTIVE"
	}
	writeJSON(w, map[string]any{"clusterInfo": map[string]any{
		"id": h.o.ClusterTimestamp, "startedOn": ms(h.s.ClusterStarted()), "state": "STARTED", "haState": ha,
		"rmStateStoreName":       "org.apache.hadoop.yarn.server.resourcemanager.recovery.NullRMStateStore",
		"resourceManagerVersion": "3.4.1", "resourceManagerBuildVersion": "3.4.1 (yarn-sidecar mini cluster stand-in)", "resourceManagerVersionBuiltOn": builtOn,
		"hadoopVersion": "3.4.1", "hadoopBuildVersion": "3.4.1 (yarn-sidecar mini cluster stand-in)", "hadoopVersionBuiltOn": builtOn,
		"haZooKeeperConnectionState": "Could not find leader elector. Verify both HA and automatic failover are enabled.",
	}})
}

// builtOn stands in for VersionInfo.getDate() (*VersionBuiltOn fields).
const builtOn = "2024-10-09T14:57Z"

// metrics serves /ws/v1/cluster/metrics (default partition only, as YARN
// does: YARN-11414).
func (h *handler) metrics(w http.ResponseWriter, r *http.Request) {
	var total, used Resource
	active, lost, unhealthy, decom, containers := 0, 0, 0, 0, 0
	for _, n := range h.s.Nodes() {
		switch n.State {
		case "RUNNING":
			active++
			if len(n.Labels) == 0 {
				total.MemoryMB += n.Total.MemoryMB
				total.VCores += n.Total.VCores
				used.MemoryMB += n.Used.MemoryMB
				used.VCores += n.Used.VCores
				containers += n.Containers
			}
		case "LOST":
			lost++
		case "UNHEALTHY":
			unhealthy++
		case "DECOMMISSIONED":
			decom++
		}
	}
	running, pending, completed, failed, killed := 0, 0, 0, 0, 0
	for _, a := range h.s.Apps() {
		switch a.State {
		case "RUNNING":
			running++
		case "ACCEPTED", "SUBMITTED", "NEW":
			pending++
		case "FAILED":
			failed++
		case "KILLED":
			killed++
		default:
			completed++
		}
	}
	// QueueMetrics counts FINISHED, FAILED and KILLED apps apart; nothing
	// is ever reserved here.
	writeJSON(w, map[string]any{"clusterMetrics": map[string]any{
		"appsSubmitted": running + pending + completed + failed + killed, "appsCompleted": completed, "appsPending": pending,
		"appsRunning": running, "appsFailed": failed, "appsKilled": killed,
		"totalMB": total.MemoryMB, "allocatedMB": used.MemoryMB, "availableMB": total.MemoryMB - used.MemoryMB, "reservedMB": 0,
		"totalVirtualCores": total.VCores, "allocatedVirtualCores": used.VCores, "availableVirtualCores": total.VCores - used.VCores,
		"reservedVirtualCores": 0, "containersAllocated": containers, "containersReserved": 0, "containersPending": 0,
		"activeNodes": active, "lostNodes": lost, "unhealthyNodes": unhealthy, "decommissioningNodes": 0, "decommissionedNodes": decom,
		"rebootedNodes": 0, "shutdownNodes": 0, "totalNodes": active + lost + unhealthy + decom,
	}})
}

// nodes serves /ws/v1/cluster/nodes with the states filter.
func (h *handler) nodes(w http.ResponseWriter, r *http.Request) {
	states := map[string]bool{}
	for _, s := range strings.Split(r.URL.Query().Get("states"), ",") {
		if s = strings.TrimSpace(strings.ToUpper(s)); s != "" {
			states[s] = true
		}
	}
	ns := h.s.Nodes()
	out := make([]nodeInfo, 0, len(ns))
	for _, n := range ns {
		if len(states) > 0 && !states[n.State] {
			continue
		}
		out = append(out, toNodeInfo(n))
	}
	var body struct {
		Nodes struct {
			Node []nodeInfo `json:"node"`
		} `json:"nodes"`
	}
	body.Nodes.Node = out
	writeJSON(w, body)
}

// node serves /ws/v1/cluster/nodes/{id} and nodes/{id}/replace-labels.
func (h *handler) node(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/ws/v1/cluster/nodes/")
	id, sub, _ := strings.Cut(rest, "/")
	if sub == "replace-labels" {
		if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, true) {
			return
		}
		if err := h.s.ReplaceNodeLabels(map[string][]string{id: r.URL.Query()["labels"]}); err != nil {
			badRequest(w, err.Error())
			return
		}
		w.WriteHeader(http.StatusOK)
		return
	}
	for _, n := range h.s.Nodes() {
		if n.ID == id {
			writeJSON(w, map[string]any{"node": toNodeInfo(n)})
			return
		}
	}
	notFound(w, "nodeId, "+id+", is not found")
}

// Node labels use Jersey's default JSON (HADOOP-API.md §0): the root is
// dropped and booleans come out as strings.
func (h *handler) getNodeLabels(w http.ResponseWriter, r *http.Request) {
	totals := h.s.PartitionTotals()
	var infos []map[string]any
	for _, l := range h.s.Labels() {
		t := totals[l.Name]
		infos = append(infos, map[string]any{"name": l.Name, "exclusivity": strconv.FormatBool(l.Exclusive),
			"partitionInfo": map[string]any{"resourceAvailable": toResourceInfo(t)}})
	}
	writeJSON(w, map[string]any{"nodeLabelInfo": infos})
}

func (h *handler) getNodeToLabels(w http.ResponseWriter, r *http.Request) {
	ex := map[string]bool{}
	for _, l := range h.s.Labels() {
		ex[l.Name] = l.Exclusive
	}
	var entries []map[string]any
	for _, n := range h.s.Nodes() {
		if len(n.Labels) == 0 {
			continue
		}
		var ls []map[string]string
		for _, l := range n.Labels {
			ls = append(ls, map[string]string{"name": l, "exclusivity": strconv.FormatBool(ex[l])})
		}
		entries = append(entries, map[string]any{"key": n.ID, "value": map[string]any{"nodeLabelInfo": ls}})
	}
	writeJSON(w, map[string]any{"nodeToLabels": map[string]any{"entry": entries}})
}

func (h *handler) addNodeLabels(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, true) {
		return
	}
	var body struct {
		NodeLabelInfo json.RawMessage `json:"nodeLabelInfo"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		badRequest(w, "bad node labels body: "+err.Error())
		return
	}
	var infos []struct {
		Name        string `json:"name"`
		Exclusivity any    `json:"exclusivity"`
	}
	raw := strings.TrimSpace(string(body.NodeLabelInfo))
	if strings.HasPrefix(raw, "{") {
		raw = "[" + raw + "]"
	}
	if err := json.Unmarshal([]byte(raw), &infos); err != nil {
		badRequest(w, "bad nodeLabelInfo: "+err.Error())
		return
	}
	var labels []Label
	for _, i := range infos {
		ex := fmt.Sprint(i.Exclusivity) != "false"
		labels = append(labels, Label{Name: i.Name, Exclusive: ex})
	}
	if err := h.s.AddLabels(labels); err != nil {
		badRequest(w, err.Error())
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (h *handler) removeNodeLabels(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, true) {
		return
	}
	if err := h.s.RemoveLabels(r.URL.Query()["labels"]); err != nil {
		badRequest(w, err.Error())
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (h *handler) replaceNodeToLabels(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, true) {
		return
	}
	var body struct {
		NodeToLabels []struct {
			NodeID     string   `json:"nodeId"`
			NodeLabels []string `json:"nodeLabels"`
		} `json:"nodeToLabels"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&body); err != nil {
		badRequest(w, "bad nodeToLabels body: "+err.Error())
		return
	}
	m := map[string][]string{}
	for _, e := range body.NodeToLabels {
		m[e.NodeID] = e.NodeLabels
	}
	if err := h.s.ReplaceNodeLabels(m); err != nil {
		badRequest(w, err.Error())
		return
	}
	w.WriteHeader(http.StatusOK)
}

const notMutable = "Configuration change only supported by MutableConfScheduler."

// notMutableValidate is RMWebServices.validateAndGetSchedulerConfiguration's.
const notMutableValidate = "Configuration change validation only supported by MutableConfScheduler."

// schedConf serves GET and PUT /ws/v1/cluster/scheduler-conf.
func (h *handler) schedConf(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodGet, http.MethodPut) || !h.authorizeWrite(w, r, true) {
		return
	}
	if !h.o.MutableConfStore {
		plain(w, http.StatusBadRequest, notMutable)
		return
	}
	if r.Method == http.MethodGet {
		conf, _ := h.s.SchedulerConf()
		b, err := conf.MarshalJSONConfInfo()
		if err != nil {
			plain(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	m, ok := h.readMutation(w, r)
	if !ok {
		return
	}
	if _, err := h.s.MutateConf(m, false); err != nil {
		plain(w, http.StatusBadRequest, "Failed to re-init queues : "+err.Error())
		return
	}
	plain(w, http.StatusOK, "Configuration change successfully applied.")
}

func (h *handler) readMutation(w http.ResponseWriter, r *http.Request) (schedconf.Mutation, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		plain(w, http.StatusBadRequest, "read body: "+err.Error())
		return schedconf.Mutation{}, false
	}
	m, err := schedconf.ParseMutation(body, r.Header.Get("Content-Type"))
	if err != nil {
		plain(w, http.StatusBadRequest, err.Error())
		return m, false
	}
	return m, true
}

func (h *handler) schedConfValidate(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, true) {
		return
	}
	if !h.o.MutableConfStore {
		plain(w, http.StatusBadRequest, notMutableValidate)
		return
	}
	m, ok := h.readMutation(w, r)
	if !ok {
		return
	}
	conf, err := h.s.MutateConf(m, true)
	if err != nil {
		plain(w, http.StatusBadRequest, "CapacityScheduler configuration validation failed:"+err.Error())
		return
	}
	b, _ := conf.MarshalJSONConfInfo()
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func (h *handler) schedConfVersion(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodGet) || !h.authorizeWrite(w, r, true) {
		return
	}
	if !h.o.MutableConfStore {
		plain(w, http.StatusBadRequest, notMutable)
		return
	}
	_, v := h.s.SchedulerConf()
	writeJSON(w, map[string]any{"versionID": v})
}

// scheduler serves /ws/v1/cluster/scheduler: the CapacityScheduler tree.
func (h *handler) scheduler(w http.ResponseWriter, r *http.Request) {
	conf, _ := h.s.SchedulerConf()
	tree, err := schedconf.ParseTree(conf)
	if err != nil {
		remoteError(w, http.StatusServiceUnavailable, "IOException", "java.io.IOException", err.Error())
		return
	}
	totals := h.s.PartitionTotals()
	parts := make([]string, 0, len(totals))
	for p := range totals {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	root := h.queueInfo(tree.Root, parts, totals)
	root["type"] = "capacityScheduler"
	writeJSON(w, map[string]any{"scheduler": map[string]any{"schedulerInfo": root}})
}

func (h *handler) queueInfo(q *schedconf.Queue, parts []string, totals map[string]Resource) map[string]any {
	rt := h.s.QueueRuntime(q.Path)
	pct := func(p string, m map[string]schedconf.CapacityValue, def float64) float64 {
		if v, ok := m[p]; ok && v.Mode == schedconf.ModePercentage {
			return v.Percent
		}
		if v, ok := m[p]; ok && v.Mode == schedconf.ModeWeight {
			return -1
		}
		return def
	}
	usedPct := func(p string) (used, absUsed float64) {
		t := totals[p]
		u := rt.ByPartition[p].Used
		if t.MemoryMB == 0 {
			return 0, 0
		}
		absUsed = 100 * float64(u.MemoryMB) / float64(t.MemoryMB)
		if c := q.AbsCapacity[p]; c > 0 {
			used = absUsed / c
		}
		return used, absUsed
	}
	var byPart []map[string]any
	var usages []map[string]any
	for _, p := range parts {
		if p != "" && !q.CanUse(p) {
			continue
		}
		used, absUsed := usedPct(p)
		weight := -1.0
		if v, ok := q.Capacity[p]; ok && v.Mode == schedconf.ModeWeight {
			weight = v.Weight
		}
		t := totals[p]
		eff := func(f float64) resourceInfo {
			return toResourceInfo(Resource{MemoryMB: int64(f * float64(t.MemoryMB)), VCores: int64(f * float64(t.VCores)), GPUs: int64(f * float64(t.GPUs))})
		}
		byPart = append(byPart, map[string]any{"partitionName": p, "capacity": pct(p, q.Capacity, 0), "usedCapacity": used,
			"maxCapacity": pct(p, q.MaxCapacity, 100), "absoluteCapacity": 100 * q.AbsCapacity[p], "absoluteUsedCapacity": absUsed,
			"absoluteMaxCapacity": 100 * q.AbsMaxCapacity[p], "maxAMLimitPercentage": 100 * q.MaxAMResourcePercent,
			"weight": weight, "normalizedWeight": 0, "configuredMinResource": toResourceInfo(Resource{}),
			"configuredMaxResource": toResourceInfo(Resource{}), "effectiveMinResource": eff(q.AbsCapacity[p]), "effectiveMaxResource": eff(q.AbsMaxCapacity[p])})
		u := rt.ByPartition[p]
		usages = append(usages, map[string]any{"partitionName": p, "used": toResourceInfo(u.Used), "reserved": toResourceInfo(Resource{}),
			"pending": toResourceInfo(u.Pending), "amUsed": toResourceInfo(u.AMUsed), "amLimit": eff(q.AbsCapacity[p] * q.MaxAMResourcePercent)})
	}
	used, absUsed := usedPct("")
	mode := "percentage"
	if v, ok := q.Capacity[""]; ok {
		mode = string(v.Mode)
	}
	var totalUsed Resource
	containers := 0
	for _, u := range rt.ByPartition {
		totalUsed.MemoryMB += u.Used.MemoryMB
		totalUsed.VCores += u.Used.VCores
		totalUsed.GPUs += u.Used.GPUs
		containers += u.NumContainers
	}
	labels := q.AccessibleLabels
	if len(labels) == 0 {
		labels = nil
	}
	info := map[string]any{
		"queueName": q.Name, "queuePath": q.Path, "capacity": pct("", q.Capacity, 0), "usedCapacity": used,
		"maxCapacity": pct("", q.MaxCapacity, 100), "absoluteCapacity": 100 * q.AbsCapacity[""], "absoluteMaxCapacity": 100 * q.AbsMaxCapacity[""],
		"absoluteUsedCapacity": absUsed, "numApplications": rt.NumApplications, "state": q.State, "mode": mode,
		"weight": -1, "normalizedWeight": 0, "nodeLabels": labels, "defaultNodeLabelExpression": q.DefaultLabelExpression,
		"resourcesUsed": toResourceInfo(totalUsed), "capacities": map[string]any{"queueCapacitiesByPartition": byPart},
		"resources": map[string]any{"resourceUsagesByPartition": usages}, "queuePriority": 0, "orderingPolicyInfo": q.OrderingPolicy,
		"creationMethod": "static", "isAbsoluteResource": mode == "absolute", "maxParallelApps": 2147483647,
	}
	if q.IsLeaf() {
		info["type"] = "capacitySchedulerLeafQueueInfo"
		info["queueType"] = "leaf"
		info["numActiveApplications"] = rt.NumActiveApplications
		info["numPendingApplications"] = rt.NumPendingApplications
		info["numContainers"] = containers
		info["maxApplications"] = q.MaxApplications
		// LeafQueue: min(maxApplications, maxApplications × user-limit% ×
		// user-limit-factor); a factor of -1 means no per-user limit.
		perUser := q.MaxApplications
		if q.UserLimitFactor >= 0 {
			perUser = min(perUser, int(float64(q.MaxApplications)*q.UserLimitFactor))
		}
		info["maxApplicationsPerUser"] = perUser
		info["userLimitFactor"] = q.UserLimitFactor
		info["userLimit"] = 100
		info["users"] = nil
		info["defaultPriority"] = q.DefaultAppPriority
		info["preemptionDisabled"] = true
		if ps, ok := h.s.(PreemptionState); ok {
			info["preemptionDisabled"] = ps.PreemptionDisabled(q.Path)
		}
		info["intraQueuePreemptionDisabled"] = true // intra-queue preemption is not modelled
	} else {
		info["queueType"] = "parent"
		var children []map[string]any
		for _, c := range q.Children {
			children = append(children, h.queueInfo(c, parts, totals))
		}
		info["queues"] = map[string]any{"queue": children}
	}
	return info
}
