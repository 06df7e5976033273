package rmweb

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// info serves /ws/v1/cluster/info.
func (h *handler) info(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"clusterInfo": h.clusterInfo()})
}

func (h *handler) clusterInfo() map[string]any {
	ha := h.o.HAState
	if ha == "" {
		ha = "ACTIVE"
	}
	store, zk := "org.apache.hadoop.yarn.server.resourcemanager.recovery.NullRMStateStore",
		"Could not find leader elector. Verify both HA and automatic failover are enabled."
	if h.o.HAState != "" && h.appTrackingHost != nil { // one of an HA pair
		store, zk = "org.apache.hadoop.yarn.server.resourcemanager.recovery.ZKRMStateStore", "CONNECTED"
	}
	v := h.o.version()
	rmBuild, build, rmOn, on := h.o.buildVersion()
	return map[string]any{
		"id": h.o.ClusterTimestamp, "startedOn": ms(h.s.ClusterStarted()), "state": "STARTED", "haState": ha,
		"rmStateStoreName":       store,
		"resourceManagerVersion": v, "resourceManagerBuildVersion": rmBuild, "resourceManagerVersionBuiltOn": rmOn,
		"hadoopVersion": v, "hadoopBuildVersion": build, "hadoopVersionBuiltOn": on,
		"haZooKeeperConnectionState": zk,
	}
}

// builtOn stands in for VersionInfo.getDate() (*VersionBuiltOn fields).
const builtOn = "2024-10-09T14:57Z"

// metrics serves /ws/v1/cluster/metrics. totalMB, allocatedMB and the like
// count the default partition only (YARN-11414; recorded: 4096 MB for two
// 4096 MB nodes, one labelled); the *AcrossPartition figures count all.
// ClusterMetricsInfo derives the totals as allocated + available, and
// available vcores never go below 0 (recorded: totalVirtualCores 7 on a
// 4-vcore partition holding 7 one-vcore containers — the default resource
// calculator counts memory only).
func (h *handler) metrics(w http.ResponseWriter, r *http.Request) {
	var total, used, allTotal, allUsed Resource
	active, lost, unhealthy, decom, containers, allContainers := 0, 0, 0, 0, 0, 0
	for _, n := range h.s.Nodes() {
		switch n.State {
		case "RUNNING":
			active++
			allTotal = addResource(allTotal, n.Total)
			allUsed = addResource(allUsed, n.Used)
			allContainers += n.Containers
			if len(n.Labels) == 0 {
				total = addResource(total, n.Total)
				used = addResource(used, n.Used)
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
	apps := h.s.AppCounts()
	running, pending, completed, failed, killed := apps.Running, apps.Pending, apps.Completed, apps.Failed, apps.Killed
	pendingRes, pendingContainers := apps.PendingDefault, apps.PendingDefaultContainers
	availMB := max(0, total.MemoryMB-used.MemoryMB)
	availVC := max(0, total.VCores-used.VCores)
	// QueueMetrics counts FINISHED, FAILED and KILLED apps apart; nothing
	// is ever reserved here. utilized*Percent come from the NMs' measured
	// use, which the mini cluster does not measure (0).
	writeJSON(w, map[string]any{"clusterMetrics": map[string]any{
		"appsSubmitted": running + pending + completed + failed + killed, "appsCompleted": completed, "appsPending": pending,
		"appsRunning": running, "appsFailed": failed, "appsKilled": killed,
		"reservedMB": 0, "availableMB": availMB, "allocatedMB": used.MemoryMB, "pendingMB": pendingRes.MemoryMB,
		"reservedVirtualCores": 0, "availableVirtualCores": availVC, "allocatedVirtualCores": used.VCores, "pendingVirtualCores": pendingRes.VCores,
		"containersAllocated": containers, "containersReserved": 0, "containersPending": pendingContainers,
		"totalMB": used.MemoryMB + availMB, "totalVirtualCores": used.VCores + availVC,
		"utilizedMBPercent": 0, "utilizedVirtualCoresPercent": 0, "rmSchedulerBusyPercent": 0,
		"totalNodes": active + lost + unhealthy + decom, "lostNodes": lost, "unhealthyNodes": unhealthy, "decommissioningNodes": 0,
		"decommissionedNodes": decom, "rebootedNodes": 0, "activeNodes": active, "shutdownNodes": 0,
		"totalUsedResourcesAcrossPartition": toResourceInfo(allUsed), "totalClusterResourcesAcrossPartition": toResourceInfo(allTotal),
		"totalReservedResourcesAcrossPartition": toResourceInfo(Resource{}), "totalAllocatedContainersAcrossPartition": allContainers,
		"crossPartitionMetricsAvailable": true,
	}})
}

func addResource(a, b Resource) Resource {
	return Resource{MemoryMB: a.MemoryMB + b.MemoryMB, VCores: a.VCores + b.VCores, GPUs: a.GPUs + b.GPUs}
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
		out = append(out, toNodeInfo(n, h.o.version()))
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
			writeJSON(w, map[string]any{"node": toNodeInfo(n, h.o.version())})
			return
		}
	}
	notFound(w, "nodeId, "+id+", is not found")
}

// webAppNotFound is the RM web app's HTML 404 for a path no REST resource
// serves (recorded for /ws/v1/cluster/get-labels-to-nodes).
func webAppNotFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html;charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\" \"http://www.w3.org/TR/html4/strict.dtd\">\n<html>\n  <title>\n    Sorry, got error 404\n  </title>\n"+
		"  <div id=\"msg\">\n    <h1>\n      Sorry, got error 404\n    </h1>\n    <pre>org.apache.hadoop.yarn.webapp.WebAppException: %s: controller for v1 not found\n</pre>\n  </div>\n</html>\n",
		html.EscapeString(strings.TrimPrefix(r.URL.Path, "/ws")))
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
	// Unfinished apps by queue, grouped once: each leaf reads its own
	// (scanning every app per leaf was quadratic, seconds per answer at
	// scale-10k's 200 queues — a cost no real RM has).
	appsByQueue := map[string][]App{}
	for _, a := range h.s.Apps() {
		if a.FinishedTime.IsZero() {
			appsByQueue[a.Queue] = append(appsByQueue[a.Queue], a)
		}
	}
	// The same for every queue; reading every node per queue was most of
	// the answer's time at scale-10k.
	maxAlloc := toResourceInfo(h.maximumAllocation())
	root := h.queueInfo(tree.Root, parts, totals, conf, appsByQueue, maxAlloc)
	root["type"] = "capacityScheduler"
	root["maximumAllocation"] = maxAlloc
	root["queueAcls"] = queueAcls(conf, "root")
	// CapacitySchedulerHealthInfo: the scheduler's last operations; the
	// mini cluster does not track them (N/A and zero counts, the values a
	// real RM shows before the first allocation).
	var ops, details []map[string]any
	for _, op := range []string{"last-allocation", "last-release", "last-preemption", "last-reservation"} {
		ops = append(ops, map[string]any{"operation": op, "nodeId": "N/A", "containerId": "N/A", "queue": "N/A"})
	}
	for _, op := range []string{"releases", "allocations", "reservations"} {
		details = append(details, map[string]any{"operation": op, "count": 0, "resources": toResourceInfo(Resource{})})
	}
	root["health"] = map[string]any{"lastrun": ms(h.s.Now()), "operationsInfo": ops, "lastRunDetails": details}
	if h.o.is33() { // 3.3's root (CapacitySchedulerInfo) has only these
		keep := map[string]bool{"capacities": true, "capacity": true, "health": true, "isAbsoluteResource": true, "maxCapacity": true,
			"maximumAllocation": true, "orderingPolicyInfo": true, "queueAcls": true, "queueName": true, "queuePriority": true,
			"queues": true, "type": true, "usedCapacity": true}
		for k := range root {
			if !keep[k] {
				delete(root, k)
			}
		}
	}
	writeJSON(w, map[string]any{"scheduler": map[string]any{"schedulerInfo": root}})
}

// floatPct writes a percentage the way the RM does: QueueCapacities keeps
// fractions as Java floats and the DAO multiplies by 100 in float, so a
// capacity set to 60 reads 60.000004 (recorded); printed as Java prints a
// float (shortest digits, ".0" for whole numbers).
func floatPct(pct float64) json.Number {
	f := float32(pct / 100)
	v := f * 100
	if pct == -1 { // weight -1 and the like are set as is
		v = -1
	}
	s := strconv.FormatFloat(float64(v), 'f', -1, 32)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.Number(s)
}

// configuredResource is a partition's configuredMin/MaxResource: the
// absolute value an absolute-mode queue is configured with, zero otherwise
// (recorded on 3.3.6 for percentage queues).
func configuredResource(v schedconf.CapacityValue) resourceInfo {
	if v.Mode != schedconf.ModeAbsolute {
		return toResourceInfo(Resource{})
	}
	return toResourceInfo(Resource{MemoryMB: v.Absolute["memory"], VCores: v.Absolute["vcores"], GPUs: v.Absolute["yarn.io/gpu"]})
}

// maximumAllocation is the largest container the scheduler grants: the
// largest running node (the RM caps yarn.scheduler.maximum-allocation-mb at
// it; recorded 4096 on 4096 MB nodes).
func (h *handler) maximumAllocation() Resource {
	var m Resource
	for _, n := range h.s.Nodes() {
		if n.State == "RUNNING" && n.Total.MemoryMB > m.MemoryMB {
			m = n.Total
		}
	}
	return m
}

// queueAcls are a queue's ACLs ("*", the default, unless configured).
func queueAcls(conf schedconf.Conf, path string) map[string]any {
	acl := func(key string) string {
		if v, ok := conf[schedconf.Key(path, key)]; ok {
			return v
		}
		return "*"
	}
	return map[string]any{"queueAcl": []map[string]string{{"accessType": "ADMINISTER_QUEUE", "accessControlList": acl("acl_administer_queue")},
		{"accessType": "SUBMIT_APP", "accessControlList": acl("acl_submit_applications")},
		{"accessType": "APPLICATION_MAX_PRIORITY", "accessControlList": acl("acl_application_max_priority")}}}
}

// queueUsers is a leaf's users with running apps and what they hold.
func queueUsers(path string, apps []App) any {
	type usage struct {
		used, am        Resource
		active, pending int
	}
	byUser := map[string]*usage{}
	var names []string
	for _, a := range apps {
		if a.Queue != path || !a.FinishedTime.IsZero() {
			continue
		}
		u := byUser[a.User]
		if u == nil {
			u = &usage{}
			byUser[a.User] = u
			names = append(names, a.User)
		}
		for _, p := range a.ByPartition {
			u.used = addResource(u.used, p.Used)
			u.am = addResource(u.am, p.AMUsed)
		}
		if a.State == "RUNNING" {
			u.active++
		} else {
			u.pending++
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	var out []map[string]any
	for _, n := range names {
		u := byUser[n]
		out = append(out, map[string]any{"username": n, "resourcesUsed": toResourceInfo(u.used), "numActiveApplications": u.active,
			"numPendingApplications": u.pending, "AMResourceUsed": toResourceInfo(u.am), "userResourceLimit": toResourceInfo(u.used),
			"userWeight": 1.0, "isActive": u.active > 0,
			"resources": map[string]any{"resourceUsagesByPartition": []map[string]any{{"partitionName": "", "used": toResourceInfo(u.used),
				"reserved": toResourceInfo(Resource{}), "pending": toResourceInfo(Resource{}), "amUsed": toResourceInfo(u.am),
				"amLimit": toResourceInfo(Resource{}), "userAmLimit": toResourceInfo(Resource{})}}}})
	}
	return map[string]any{"user": out}
}

func (h *handler) queueInfo(q *schedconf.Queue, parts []string, totals map[string]Resource, conf schedconf.Conf, appsByQueue map[string][]App, maxAlloc resourceInfo) map[string]any {
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
		byPart = append(byPart, map[string]any{"partitionName": p, "capacity": floatPct(pct(p, q.Capacity, 0)), "usedCapacity": floatPct(used),
			"maxCapacity": floatPct(pct(p, q.MaxCapacity, 100)), "absoluteCapacity": floatPct(100 * q.AbsCapacity[p]), "absoluteUsedCapacity": floatPct(absUsed),
			"absoluteMaxCapacity": floatPct(100 * q.AbsMaxCapacity[p]), "maxAMLimitPercentage": 100 * q.MaxAMResourcePercent,
			"weight": weight, "normalizedWeight": 0, "configuredMinResource": configuredResource(q.Capacity[p]),
			"configuredMaxResource": configuredResource(q.MaxCapacity[p]), "effectiveMinResource": eff(q.AbsCapacity[p]), "effectiveMaxResource": eff(q.AbsMaxCapacity[p])})
		u := rt.ByPartition[p]
		usages = append(usages, map[string]any{"partitionName": p, "used": toResourceInfo(u.Used), "reserved": toResourceInfo(Resource{}),
			"pending": toResourceInfo(u.Pending), "amUsed": toResourceInfo(u.AMUsed), "amLimit": eff(q.AbsCapacity[p] * q.MaxAMResourcePercent),
			"userAmLimit": eff(q.AbsCapacity[p] * q.MaxAMResourcePercent)})
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
		"queueName": q.Name, "queuePath": q.Path, "capacity": floatPct(pct("", q.Capacity, 0)), "usedCapacity": floatPct(used),
		"maxCapacity": floatPct(pct("", q.MaxCapacity, 100)), "absoluteCapacity": floatPct(100 * q.AbsCapacity[""]), "absoluteMaxCapacity": floatPct(100 * q.AbsMaxCapacity[""]),
		"absoluteUsedCapacity": floatPct(absUsed), "numApplications": rt.NumApplications, "state": q.State, "mode": mode,
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
		info["intraQueuePreemptionDisabled"] = true
		pendingContainers := 0
		for _, a := range appsByQueue[q.Path] {
			if a.Queue == q.Path && a.FinishedTime.IsZero() {
				for _, u := range a.ByPartition {
					pendingContainers += u.PendingContainers
				}
			}
		}
		t := totals[""]
		amLimit := toResourceInfo(Resource{MemoryMB: int64(q.AbsCapacity[""] * q.MaxAMResourcePercent * float64(t.MemoryMB)), VCores: 1})
		info["users"] = queueUsers(q.Path, appsByQueue[q.Path])
		info["allocatedContainers"], info["reservedContainers"], info["pendingContainers"] = containers, 0, pendingContainers
		info["AMResourceLimit"], info["userAMResourceLimit"] = amLimit, amLimit
		info["usedAMResource"] = toResourceInfo(rt.ByPartition[""].AMUsed)
		info["configuredMaxAMResourceLimit"] = q.MaxAMResourcePercent
		info["isAutoCreatedLeafQueue"] = false
		info["maxApplicationLifetime"], info["defaultApplicationLifetime"] = -1, -1
		if ps, ok := h.s.(PreemptionState); ok {
			info["preemptionDisabled"] = ps.PreemptionDisabled(q.Path)
		}
	} else {
		info["queueType"] = "parent"
		var children []map[string]any
		for _, c := range q.Children {
			children = append(children, h.queueInfo(c, parts, totals, conf, appsByQueue, maxAlloc))
		}
		info["queues"] = map[string]any{"queue": children}
	}
	t := totals[""]
	info["queueAcls"] = queueAcls(conf, q.Path)
	info["maximumAllocation"] = maxAlloc
	info["minEffectiveCapacity"] = toResourceInfo(Resource{MemoryMB: int64(q.AbsCapacity[""] * float64(t.MemoryMB)), VCores: int64(q.AbsCapacity[""] * float64(t.VCores))})
	info["maxEffectiveCapacity"] = toResourceInfo(Resource{MemoryMB: int64(q.AbsMaxCapacity[""] * float64(t.MemoryMB)), VCores: int64(q.AbsMaxCapacity[""] * float64(t.VCores))})
	info["hideReservationQueues"], info["autoCreateChildQueueEnabled"], info["leafQueueTemplate"] = false, false, map[string]any{}
	if h.o.is33() { // fields of the 3.4 DAO a 3.3 RM does not send (recorded)
		for _, k := range []string{"queuePath", "queueType", "mode", "weight", "normalizedWeight", "creationMethod", "maxParallelApps"} {
			delete(info, k)
		}
		for _, c := range byPart {
			delete(c, "weight")
			delete(c, "normalizedWeight")
		}
	}
	return info
}
