package yarn

import (
	"context"
	"fmt"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// ClusterInfo is /ws/v1/cluster/info: the RM's HA state and versions.
type ClusterInfo struct {
	RM            string // the RM address that answered
	HAState       string // ACTIVE, STANDBY (empty without HA)
	State         string // STARTED ...
	HadoopVersion string // e.g. 3.3.6; weight-mode capacities need 3.4+
	RMVersion     string
}

// Info reads /ws/v1/cluster/info from the active RM. A standby answers this
// call itself (200, "haState":"STANDBY") instead of redirecting, so each
// configured RM is asked until one says ACTIVE; with none active the error
// wraps ErrNoActiveRM.
func (c *Client) Info(ctx context.Context) (ClusterInfo, error) {
	c.mu.Lock()
	start := c.active
	c.mu.Unlock()
	var last error
	var standby *ClusterInfo
	n := len(c.cfg.RMAddresses)
	for i := 0; i < n; i++ {
		base := c.cfg.RMAddresses[(start+i)%n]
		var body struct {
			ClusterInfo *struct {
				State                  string `json:"state"`
				HAState                string `json:"haState"`
				HadoopVersion          string `json:"hadoopVersion"`
				ResourceManagerVersion string `json:"resourceManagerVersion"`
			} `json:"clusterInfo"`
		}
		if err := c.getJSON(ctx, base+"/ws/v1/cluster/info", nil, &body); err != nil {
			last = err
			continue
		}
		if body.ClusterInfo == nil {
			last = fmt.Errorf("GET %s/ws/v1/cluster/info: no clusterInfo", base)
			continue
		}
		ci := ClusterInfo{RM: base, HAState: body.ClusterInfo.HAState, State: body.ClusterInfo.State,
			HadoopVersion: body.ClusterInfo.HadoopVersion, RMVersion: body.ClusterInfo.ResourceManagerVersion}
		if strings.EqualFold(ci.HAState, "STANDBY") {
			standby = &ci
			continue
		}
		return ci, nil
	}
	if standby != nil {
		return *standby, fmt.Errorf("GET /ws/v1/cluster/info: %s is STANDBY and no RM said ACTIVE: %w", standby.RM, ErrNoActiveRM)
	}
	return ClusterInfo{}, last
}

// Metrics is /ws/v1/cluster/metrics. TotalMB, AllocatedMB and AvailableMB
// (and their vcore twins) count the DEFAULT partition only (YARN-11414;
// recorded on 3.3.6: totalMB 4096 for two 4096 MB nodes, one labelled); the
// whole cluster is in the cross-partition figures, present when
// CrossPartitionAvailable.
type Metrics struct {
	AppsRunning, AppsPending                     int
	TotalMB, AllocatedMB, AvailableMB, PendingMB int64
	TotalVCores, AllocatedVCores                 int64
	ActiveNodes, TotalNodes                      int
	LostNodes, UnhealthyNodes                    int
	DecommissioningNodes, DecommissionedNodes    int
	RebootedNodes, ShutdownNodes                 int
	CrossPartitionAvailable                      bool
	TotalAcrossPartitions                        cluster.Resource
	UsedAcrossPartitions                         cluster.Resource
	ReservedAcrossPartitions                     cluster.Resource
	ContainersAcrossPartitions                   int64
}

// Metrics reads /ws/v1/cluster/metrics.
func (c *Client) Metrics(ctx context.Context) (Metrics, error) {
	var body struct {
		M *struct {
			AppsRunning           jerseyInt     `json:"appsRunning"`
			AppsPending           jerseyInt     `json:"appsPending"`
			TotalMB               jerseyInt     `json:"totalMB"`
			AllocatedMB           jerseyInt     `json:"allocatedMB"`
			AvailableMB           jerseyInt     `json:"availableMB"`
			PendingMB             jerseyInt     `json:"pendingMB"`
			TotalVirtualCores     jerseyInt     `json:"totalVirtualCores"`
			AllocatedVirtualCores jerseyInt     `json:"allocatedVirtualCores"`
			ActiveNodes           jerseyInt     `json:"activeNodes"`
			TotalNodes            jerseyInt     `json:"totalNodes"`
			LostNodes             jerseyInt     `json:"lostNodes"`
			UnhealthyNodes        jerseyInt     `json:"unhealthyNodes"`
			Decommissioning       jerseyInt     `json:"decommissioningNodes"`
			Decommissioned        jerseyInt     `json:"decommissionedNodes"`
			RebootedNodes         jerseyInt     `json:"rebootedNodes"`
			ShutdownNodes         jerseyInt     `json:"shutdownNodes"`
			CrossPartition        jerseyBool    `json:"crossPartitionMetricsAvailable"`
			TotalAcross           *resourceJSON `json:"totalClusterResourcesAcrossPartition"`
			UsedAcross            *resourceJSON `json:"totalUsedResourcesAcrossPartition"`
			ReservedAcross        *resourceJSON `json:"totalReservedResourcesAcrossPartition"`
			ContainersAcross      jerseyInt     `json:"totalAllocatedContainersAcrossPartition"`
		} `json:"clusterMetrics"`
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/metrics", nil, &body); err != nil {
		return Metrics{}, err
	}
	m := body.M
	if m == nil {
		return Metrics{}, fmt.Errorf("GET /ws/v1/cluster/metrics: no clusterMetrics")
	}
	return Metrics{AppsRunning: int(m.AppsRunning), AppsPending: int(m.AppsPending), TotalMB: int64(m.TotalMB), AllocatedMB: int64(m.AllocatedMB),
		AvailableMB: int64(m.AvailableMB), PendingMB: int64(m.PendingMB), TotalVCores: int64(m.TotalVirtualCores), AllocatedVCores: int64(m.AllocatedVirtualCores),
		ActiveNodes: int(m.ActiveNodes), TotalNodes: int(m.TotalNodes), LostNodes: int(m.LostNodes), UnhealthyNodes: int(m.UnhealthyNodes),
		DecommissioningNodes: int(m.Decommissioning), DecommissionedNodes: int(m.Decommissioned), RebootedNodes: int(m.RebootedNodes),
		ShutdownNodes: int(m.ShutdownNodes), CrossPartitionAvailable: bool(m.CrossPartition),
		TotalAcrossPartitions: m.TotalAcross.resource(), UsedAcrossPartitions: m.UsedAcross.resource(),
		ReservedAcrossPartitions: m.ReservedAcross.resource(), ContainersAcrossPartitions: int64(m.ContainersAcross)}, nil
}
