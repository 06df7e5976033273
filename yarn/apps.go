package yarn

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type appJSON struct {
	ID                     string        `json:"id"`
	User                   string        `json:"user"`
	Name                   string        `json:"name"`
	Queue                  string        `json:"queue"`
	State                  string        `json:"state"`
	Progress               jerseyFloat   `json:"progress"`
	TrackingURL            string        `json:"trackingUrl"`
	ApplicationType        string        `json:"applicationType"`
	ApplicationTags        string        `json:"applicationTags"`
	Priority               jerseyInt     `json:"priority"`
	StartedTime            jerseyInt     `json:"startedTime"`
	FinishedTime           jerseyInt     `json:"finishedTime"`
	AllocatedMB            jerseyInt     `json:"allocatedMB"`
	AllocatedVCores        jerseyInt     `json:"allocatedVCores"`
	RunningContainers      jerseyInt     `json:"runningContainers"`
	MasterNodeID           string        `json:"masterNodeId"`
	AMContainerLogs        string        `json:"amContainerLogs"`
	AppNodeLabelExpression string        `json:"appNodeLabelExpression"`
	ResourceInfo           *appResources `json:"resourceInfo"`
	// What preemption took from the app (ProportionalCapacityPreemptionPolicy).
	PreemptedResourceMB        jerseyInt `json:"preemptedResourceMB"`
	PreemptedResourceVCores    jerseyInt `json:"preemptedResourceVCores"`
	NumNonAMContainerPreempted jerseyInt `json:"numNonAMContainerPreempted"`
	NumAMContainerPreempted    jerseyInt `json:"numAMContainerPreempted"`
	PreemptedMemorySeconds     jerseyInt `json:"preemptedMemorySeconds"`
	PreemptedVcoreSeconds      jerseyInt `json:"preemptedVcoreSeconds"`
}

// appResources is an app's usage per node-label partition (3.3+), one
// entry per partition the app has touched.
type appResources struct {
	ByPartition jerseyList[struct {
		PartitionName string        `json:"partitionName"`
		Used          *resourceJSON `json:"used"`
		Reserved      *resourceJSON `json:"reserved"`
		Pending       *resourceJSON `json:"pending"`
		AMUsed        *resourceJSON `json:"amUsed"`
	}] `json:"resourceUsagesByPartition"`
}

func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// app converts the RM's view. Queue is what the RM reports: the leaf's
// short name on 3.3 ("crypto"), its full path on later releases
// ("root.crypto"); Snapshot.ResolveAppQueues turns it into the path.
func (a appJSON) app() cluster.App {
	var tags []string
	for _, t := range strings.Split(a.ApplicationTags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	out := cluster.App{ID: a.ID, Name: a.Name, User: a.User, Queue: a.Queue, State: cluster.AppState(a.State), Type: a.ApplicationType,
		Priority: int(a.Priority), Tags: tags, Progress: float64(a.Progress), StartedTime: msTime(int64(a.StartedTime)), FinishedTime: msTime(int64(a.FinishedTime)),
		TrackingURL: a.TrackingURL, NodeLabelExpression: a.AppNodeLabelExpression,
		Allocated: cluster.Resource{MemoryMB: int64(a.AllocatedMB), VCores: int64(a.AllocatedVCores)}, RunningContainers: int(a.RunningContainers),
		AMNodeID: a.MasterNodeID}
	if a.FinishedTime <= 0 { // a finished app's AM container is gone
		out.AMContainerID = amContainerID(a.AMContainerLogs)
	}
	if p := (cluster.AppPreemption{Resource: cluster.Resource{MemoryMB: int64(a.PreemptedResourceMB), VCores: int64(a.PreemptedResourceVCores)},
		NonAMContainers: int(a.NumNonAMContainerPreempted), AMContainers: int(a.NumAMContainerPreempted),
		MemorySeconds: int64(a.PreemptedMemorySeconds), VCoreSeconds: int64(a.PreemptedVcoreSeconds)}); p != (cluster.AppPreemption{}) {
		out.Preempted = &p
	}
	if a.ResourceInfo != nil && len(a.ResourceInfo.ByPartition) > 0 {
		out.UsageByPartition = make(map[string]cluster.AppPartitionUsage, len(a.ResourceInfo.ByPartition))
		for _, p := range a.ResourceInfo.ByPartition {
			out.UsageByPartition[p.PartitionName] = cluster.AppPartitionUsage{Used: p.Used.resource(), Reserved: p.Reserved.resource(),
				Pending: p.Pending.resource(), AMUsed: p.AMUsed.resource()}
		}
	}
	return out
}

// appsDeSelects are the app fields never read, left out of /apps
// (RMWebServices' DeSelectFields): resourceRequests (YARN-6280, 2.9+), then
// timeouts and amNodeLabelExpression (YARN-6871, 3.2+). resourceInfo
// (placement per partition) and appNodeLabelExpression are read.
var appsDeSelects = []string{"resourceRequests", "timeouts", "amNodeLabelExpression"}

// Apps reads /ws/v1/cluster/apps in the given states (e.g. RUNNING).
func (c *Client) Apps(ctx context.Context, states ...string) ([]cluster.App, error) {
	return c.apps(ctx, false, states...)
}

// apps reads /apps; lean leaves resourceInfo out as well (appusage.go).
// An RM before YARN-6871 knows no deSelects literal but
// resourceRequests: it is asked with that one alone and sends
// resourceInfo, lean or not.
func (c *Client) apps(ctx context.Context, lean bool, states ...string) ([]cluster.App, error) {
	ds := appsDeSelects
	if lean {
		ds = append(append([]string(nil), ds...), "resourceInfo")
	}
	if c.oldDeSelects.Load() {
		ds = ds[:1]
	}
	q := url.Values{"deSelects": {strings.Join(ds, ",")}}
	if len(states) > 0 {
		q.Set("states", strings.Join(states, ","))
	}
	var body appsStream
	err := c.rmGet(ctx, "/ws/v1/cluster/apps", q, &body)
	if re := (*RemoteError)(nil); len(ds) > 1 && errors.As(err, &re) && re.Status == 400 && strings.Contains(re.Message, "deSelects") {
		// An RM before YARN-6871 refuses the literals it does not know
		// (400 "Invalid deSelects string"): ask as it understands, from
		// now on.
		c.oldDeSelects.Store(true)
		c.cfg.Logger.Info("RM knows only deSelects=resourceRequests (before 3.2); asking for apps with timeouts and amNodeLabelExpression")
		return c.apps(ctx, lean, states...)
	}
	if err != nil {
		return nil, err
	}
	if body.missing >= 0 {
		return nil, fmt.Errorf("GET /ws/v1/cluster/apps: app %d has no id", body.missing)
	}
	return body.apps, nil // nil for "apps": null (none)
}

// appsStream decodes /apps element by element (stream.go).
type appsStream struct {
	apps    []cluster.App
	missing int // index of the first app without an id, or -1
}

func (s *appsStream) decodeStream(dec *jsontext.Decoder) error {
	s.apps, s.missing = nil, -1 // a retry starts over
	i := 0
	return decodeListAt(dec, []string{"apps", "app"}, func(a *appJSON) error {
		if a.ID == "" && s.missing < 0 {
			s.missing = i
		}
		i++
		s.apps = append(s.apps, a.app())
		return nil
	})
}

// appsJSON is the body of /apps ("apps": null when there are none).
type appsJSON struct {
	Apps *struct {
		App jerseyList[appJSON] `json:"app"`
	} `json:"apps"`
}

// appAttemptsJSON is the body of /apps/{id}/appattempts.
type appAttemptsJSON struct {
	AppAttempts *struct {
		AppAttempt jerseyList[appAttemptJSON] `json:"appAttempt"`
	} `json:"appAttempts"`
}

// appAttemptJSON is one entry of /apps/{id}/appattempts.
type appAttemptJSON struct {
	ID              jerseyInt `json:"id"`
	AppAttemptID    string    `json:"appAttemptId"`
	NodeID          string    `json:"nodeId"`
	NodeHTTPAddress string    `json:"nodeHttpAddress"`
	ContainerID     string    `json:"containerId"`
	StartTime       jerseyInt `json:"startTime"`
	FinishedTime    jerseyInt `json:"finishedTime"`
}

// containerJSON is one entry of an app attempt's containers. Hadoop 3.3.6
// sends its numbers as strings and nodeHttpAddress with a scheme.
type containerJSON struct {
	containerNodeJSON
	ContainerID     string    `json:"containerId"`
	AllocatedMB     jerseyInt `json:"allocatedMB"`
	AllocatedVCores jerseyInt `json:"allocatedVCores"`
	NodeHTTPAddress string    `json:"nodeHttpAddress"`
	Priority        jerseyInt `json:"priority"`
	StartedTime     jerseyInt `json:"startedTime"`
	FinishedTime    jerseyInt `json:"finishedTime"`
	ElapsedTime     jerseyInt `json:"elapsedTime"`
	ExitStatus      jerseyInt `json:"containerExitStatus"`
	State           string    `json:"containerState"`
}

// containersJSON is the body of .../appattempts/{attempt}/containers:
// {"container":[...]} on 3.3.6 (an object for one container, {} for
// none), {"containers":{"container":[...]}} where a release wraps it.
type containersJSON = containersBody[containerJSON]

type containersBody[T any] struct {
	Containers *struct {
		Container jerseyList[T] `json:"container"`
	} `json:"containers"`
	Container jerseyList[T] `json:"container"`
}

func (b containersBody[T]) list() []T {
	list := append([]T(nil), b.Container...)
	if b.Containers != nil {
		list = append(list, b.Containers.Container...)
	}
	return list
}

// containerNodeJSON is containerJSON cut to what a per-node count reads:
// the rest of each entry is skipped, not decoded. 200 listings of a
// scale-10k snapshot are about 6 MiB; decoding the cut view of a recorded
// 3.3.6 body took 0.21 ms against 0.30 ms for the whole entry (go test
// -bench, 10 copies of its entries).
type containerNodeJSON struct {
	AssignedNodeID string `json:"assignedNodeId"`
	NodeID         string `json:"nodeId"`
}

// node is the container's RM node id.
func (ct containerNodeJSON) node() string {
	if ct.NodeID != "" {
		return ct.NodeID
	}
	return ct.AssignedNodeID
}

// containerNodesJSON is containersJSON with the cut entries.
type containerNodesJSON = containersBody[containerNodeJSON]

// perNode counts the containers per node.
func perNode(b containerNodesJSON) map[string]int {
	out := map[string]int{}
	for _, ct := range b.Container {
		out[ct.node()]++
	}
	if b.Containers != nil {
		for _, ct := range b.Containers.Container {
			out[ct.node()]++
		}
	}
	return out
}

// amContainerID is the container id at the end of an app's
// amContainerLogs (http://nm:8042/node/containerlogs/<container>/<user>,
// recorded on 3.3.6), or "".
func amContainerID(logs string) string {
	i := strings.Index(logs, "/containerlogs/")
	if i < 0 {
		return ""
	}
	id, _, _ := strings.Cut(logs[i+len("/containerlogs/"):], "/")
	if !strings.HasPrefix(id, "container_") {
		return ""
	}
	return id
}

// attemptOf is the app attempt id of one of the app's containers
// (ContainerId: container_[e<epoch>_]<clusterTs>_<app>_<attempt>_<n>;
// ApplicationAttemptId: appattempt_<clusterTs>_<app>_<attempt, 6 digits>),
// or "" when the container id is not of that form or not the app's.
func attemptOf(appID, containerID string) string {
	f := strings.Split(containerID, "_")
	if len(f) == 6 && strings.HasPrefix(f[1], "e") {
		f = append(f[:1], f[2:]...)
	}
	if len(f) != 5 || f[0] != "container" || appID != "application_"+f[1]+"_"+f[2] {
		return ""
	}
	n, err := strconv.Atoi(f[3])
	if err != nil || n <= 0 {
		return ""
	}
	return fmt.Sprintf("appattempt_%s_%s_%06d", f[1], f[2], n)
}

// ContainersOf is Containers for an app read from /apps: when its AM
// container names the current attempt, the containers are read in one
// request instead of two (the attempts list is skipped); an attempt the
// RM no longer knows (404: a new attempt since) falls back to Containers.
func (c *Client) ContainersOf(ctx context.Context, a *cluster.App) (map[string]int, error) {
	attempt := attemptOf(a.ID, a.AMContainerID)
	if attempt == "" {
		return c.Containers(ctx, a.ID)
	}
	out, err := c.attemptContainers(ctx, a.ID, attempt)
	var re *RemoteError
	if errors.As(err, &re) && re.Status == 404 {
		return c.Containers(ctx, a.ID)
	}
	return out, err
}

// Containers reads the running containers of an app's current attempt
// (/apps/{id}/appattempts/{attempt}/containers) and counts them per node.
func (c *Client) Containers(ctx context.Context, appID string) (map[string]int, error) {
	var attemptsBody bodyDecoder[appAttemptsJSON]
	if err := c.rmGet(ctx, "/ws/v1/cluster/apps/"+appID+"/appattempts", nil, &attemptsBody); err != nil {
		return nil, err
	}
	attempts := attemptsBody.v
	if attempts.AppAttempts == nil || len(attempts.AppAttempts.AppAttempt) == 0 {
		return nil, nil
	}
	last := attempts.AppAttempts.AppAttempt[len(attempts.AppAttempts.AppAttempt)-1].AppAttemptID
	return c.attemptContainers(ctx, appID, last)
}

// attemptContainers counts an attempt's running containers per node.
func (c *Client) attemptContainers(ctx context.Context, appID, attempt string) (map[string]int, error) {
	var body bodyDecoder[containerNodesJSON]
	if err := c.rmGet(ctx, "/ws/v1/cluster/apps/"+appID+"/appattempts/"+attempt+"/containers", nil, &body); err != nil {
		return nil, err
	}
	return perNode(body.v), nil
}

// SetAppPriority is PUT /apps/{id}/priority; it returns the priority the RM
// reports after the update (it caps values above the maximum).
func (c *Client) SetAppPriority(ctx context.Context, appID string, p int) (int, error) {
	var out struct {
		Priority jerseyInt `json:"priority"`
	}
	if err := c.rmWrite(ctx, "PUT", "/ws/v1/cluster/apps/"+appID+"/priority", nil, []byte(fmt.Sprintf(`{"priority":%d}`, p)), "application/json", &out); err != nil {
		return 0, err
	}
	return int(out.Priority), nil
}

// MoveApp is PUT /apps/{id}/queue.
func (c *Client) MoveApp(ctx context.Context, appID, queue string) error {
	return c.rmWrite(ctx, "PUT", "/ws/v1/cluster/apps/"+appID+"/queue", nil, []byte(fmt.Sprintf(`{"queue":%q}`, queue)), "application/json", nil)
}
