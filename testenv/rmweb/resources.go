package rmweb

// JSON shapes of the RM's DAO classes (RMWS/dao/*.java), as documented in
// ResourceManagerRest.md; newer fields (nodeLabels, resourceInformations,
// totalResource, priority) follow the 3.4 DAOs.

type resourceInformation struct {
	Name              string            `json:"name"`
	Value             int64             `json:"value"`
	Units             string            `json:"units"`
	ResourceType      string            `json:"resourceType"`
	MinimumAllocation int64             `json:"minimumAllocation"`
	MaximumAllocation int64             `json:"maximumAllocation"`
	Attributes        map[string]string `json:"attributes"`
}

type resourceInfo struct {
	Memory               int64 `json:"memory"`
	VCores               int64 `json:"vCores"`
	ResourceInformations struct {
		ResourceInformation []resourceInformation `json:"resourceInformation"`
	} `json:"resourceInformations"`
}

func toResourceInfo(r Resource) resourceInfo {
	var ri resourceInfo
	ri.Memory, ri.VCores = r.MemoryMB, r.VCores
	ri.ResourceInformations.ResourceInformation = []resourceInformation{
		{Name: "memory-mb", Value: r.MemoryMB, Units: "Mi", ResourceType: "COUNTABLE", MaximumAllocation: 9223372036854775807, Attributes: map[string]string{}},
		{Name: "vcores", Value: r.VCores, Units: "", ResourceType: "COUNTABLE", MaximumAllocation: 9223372036854775807, Attributes: map[string]string{}},
		{Name: "yarn.io/gpu", Value: r.GPUs, Units: "", ResourceType: "COUNTABLE", MaximumAllocation: 9223372036854775807, Attributes: map[string]string{}},
	}
	return ri
}

type nodeInfo struct {
	Rack                  string       `json:"rack"`
	State                 string       `json:"state"`
	ID                    string       `json:"id"`
	NodeHostName          string       `json:"nodeHostName"`
	NodeHTTPAddress       string       `json:"nodeHTTPAddress"`
	LastHealthUpdate      int64        `json:"lastHealthUpdate"`
	Version               string       `json:"version"`
	HealthReport          string       `json:"healthReport"`
	NumContainers         int          `json:"numContainers"`
	UsedMemoryMB          int64        `json:"usedMemoryMB"`
	AvailMemoryMB         int64        `json:"availMemoryMB"`
	UsedVirtualCores      int64        `json:"usedVirtualCores"`
	AvailableVirtualCores int64        `json:"availableVirtualCores"`
	NodeLabels            []string     `json:"nodeLabels,omitempty"`
	UsedResource          resourceInfo `json:"usedResource"`
	AvailableResource     resourceInfo `json:"availableResource"`
	TotalResource         resourceInfo `json:"totalResource"`

	// ResourceUtilization is the NM's measured use (3.x node object); the
	// mini cluster measures none (0), nor runs opportunistic containers.
	ResourceUtilization        resourceUtilization `json:"resourceUtilization"`
	MemUtilization             float64             `json:"memUtilization"`
	CPUUtilization             float64             `json:"cpuUtilization"`
	NumRunningOpportContainers int                 `json:"numRunningOpportContainers"`
	UsedMemoryOpportGB         int64               `json:"usedMemoryOpportGB"`
	UsedVirtualCoresOpport     int64               `json:"usedVirtualCoresOpport"`
	NumQueuedContainers        int                 `json:"numQueuedContainers"`
	AllocationTags             map[string]any      `json:"allocationTags"`
	NodeAttributesInfo         map[string]any      `json:"nodeAttributesInfo"`
}

type resourceUtilization struct {
	NodePhysicalMemoryMB                 int64   `json:"nodePhysicalMemoryMB"`
	NodeVirtualMemoryMB                  int64   `json:"nodeVirtualMemoryMB"`
	NodeCPUUsage                         float64 `json:"nodeCPUUsage"`
	AggregatedContainersPhysicalMemoryMB int64   `json:"aggregatedContainersPhysicalMemoryMB"`
	AggregatedContainersVirtualMemoryMB  int64   `json:"aggregatedContainersVirtualMemoryMB"`
	ContainersCPUUsage                   float64 `json:"containersCPUUsage"`
}

func toNodeInfo(n Node, version string) nodeInfo {
	avail := Resource{MemoryMB: n.Total.MemoryMB - n.Used.MemoryMB, VCores: n.Total.VCores - n.Used.VCores, GPUs: n.Total.GPUs - n.Used.GPUs}
	return nodeInfo{Rack: n.Rack, State: n.State, ID: n.ID, NodeHostName: n.Host, NodeHTTPAddress: n.HTTPAddress,
		LastHealthUpdate: ms(n.LastHealth), Version: version, HealthReport: n.Health, NumContainers: n.Containers,
		UsedMemoryMB: n.Used.MemoryMB, AvailMemoryMB: avail.MemoryMB, UsedVirtualCores: n.Used.VCores, AvailableVirtualCores: avail.VCores,
		AllocationTags: map[string]any{}, NodeAttributesInfo: map[string]any{},
		NodeLabels: n.Labels, UsedResource: toResourceInfo(n.Used), AvailableResource: toResourceInfo(avail), TotalResource: toResourceInfo(n.Total)}
}

type appInfo struct {
	ID                          string           `json:"id"`
	User                        string           `json:"user"`
	Name                        string           `json:"name"`
	Queue                       string           `json:"queue"`
	State                       string           `json:"state"`
	FinalStatus                 string           `json:"finalStatus"`
	Progress                    float64          `json:"progress"`
	TrackingUI                  string           `json:"trackingUI"`
	TrackingURL                 string           `json:"trackingUrl"`
	Diagnostics                 string           `json:"diagnostics"`
	ClusterID                   int64            `json:"clusterId"`
	ApplicationType             string           `json:"applicationType"`
	ApplicationTags             string           `json:"applicationTags"`
	Priority                    int              `json:"priority"`
	StartedTime                 int64            `json:"startedTime"`
	LaunchTime                  int64            `json:"launchTime"`
	FinishedTime                int64            `json:"finishedTime"`
	ElapsedTime                 int64            `json:"elapsedTime"`
	AMContainerLogs             string           `json:"amContainerLogs,omitempty"`
	AMHostHTTPAddress           string           `json:"amHostHttpAddress,omitempty"`
	AMRPCAddress                string           `json:"amRPCAddress,omitempty"`
	MasterNodeID                string           `json:"masterNodeId,omitempty"`
	AllocatedMB                 int64            `json:"allocatedMB"`
	AllocatedVCores             int64            `json:"allocatedVCores"`
	ReservedMB                  int64            `json:"reservedMB"`
	ReservedVCores              int64            `json:"reservedVCores"`
	RunningContainers           int              `json:"runningContainers"`
	MemorySeconds               int64            `json:"memorySeconds"`
	VcoreSeconds                int64            `json:"vcoreSeconds"`
	QueueUsagePercentage        float64          `json:"queueUsagePercentage"`
	ClusterUsagePercentage      float64          `json:"clusterUsagePercentage"`
	ResourceSecondsMap          map[string]any   `json:"resourceSecondsMap"`
	PreemptedResourceMB         int64            `json:"preemptedResourceMB"`
	PreemptedResourceVCores     int64            `json:"preemptedResourceVCores"`
	NumNonAMContainerPreempted  int              `json:"numNonAMContainerPreempted"`
	NumAMContainerPreempted     int              `json:"numAMContainerPreempted"`
	PreemptedMemorySeconds      int64            `json:"preemptedMemorySeconds"`
	PreemptedVcoreSeconds       int64            `json:"preemptedVcoreSeconds"`
	PreemptedResourceSecondsMap map[string]any   `json:"preemptedResourceSecondsMap"`
	LogAggregationStatus        string           `json:"logAggregationStatus"`
	UnmanagedApplication        bool             `json:"unmanagedApplication"`
	AppNodeLabelExpression      string           `json:"appNodeLabelExpression,omitempty"`
	AMNodeLabelExpression       *string          `json:"amNodeLabelExpression,omitempty"` // "" is sent; nil when deselected
	ResourceRequests            []map[string]any `json:"resourceRequests,omitempty"`
	ResourceInfo                map[string]any   `json:"resourceInfo,omitempty"`
	Timeouts                    map[string]any   `json:"timeouts,omitempty"` // nil when deselected
}
