package main

import (
	"encoding/json"
	"io"
	"net/http"
)

// exporterScrape does what PBWebMedia/yarn-prometheus-exporter does on a
// Prometheus scrape (read from its collector.go; not copied): four GETs in
// parallel — cluster metrics, scheduler, running apps, running nodes — each
// body decoded by json.Decoder straight into typed structs holding only the
// fields it exports. It is the baseline the sidecar's observe is measured
// against (issue 19), in the same run, against the same mini RM.
func exporterScrape(base string) (exporterCounts, error) {
	var (
		metrics struct {
			ClusterMetrics struct {
				AppsSubmitted, AppsCompleted, AppsPending, AppsRunning, AppsFailed, AppsKilled int
				ReservedMB, AvailableMB, AllocatedMB, TotalMB                                  int
				ReservedVirtualCores, AvailableVirtualCores, AllocatedVirtualCores             int
				ContainersAllocated, ContainersReserved, ContainersPending                     int
				TotalVirtualCores, TotalNodes, LostNodes, UnhealthyNodes                       int
				DecommissioningNodes, DecommissionedNodes, RebootedNodes, ActiveNodes          int
				ShutdownNodes                                                                  int
			} `json:"clusterMetrics"`
		}
		sched struct {
			Scheduler struct {
				SchedulerInfo struct {
					Queues struct {
						Queue []struct {
							Capacity, UsedCapacity, MaxCapacity float64
							NumApplications                     int
							QueueName, State                    string
							ResourcesUsed                       struct{ Memory, VCores int }
						} `json:"queue"`
					} `json:"queues"`
				} `json:"schedulerInfo"`
			} `json:"scheduler"`
		}
		apps struct {
			Apps struct {
				App []struct {
					ID, User, Name, Queue, ApplicationType       string
					ClusterID, StartedTime, LaunchTime           int64
					FinishedTime, ElapsedTime                    int64
					QueueUsagePercentage, ClusterUsagePercentage float64
				} `json:"app"`
			} `json:"apps"`
		}
		nodes struct {
			Nodes struct {
				Node []struct {
					Rack, State, NodeHostName, Version         string
					LastHealthUpdate                           int64
					NumContainers                              int
					UsedMemoryMB                               float64
					AvailMemoryMB, UsedVirtualCores            int
					AvailableVirtualCores, NumQueuedContainers int
					MemUtilization, CpuUtilization             float64
				} `json:"node"`
			} `json:"nodes"`
		}
	)
	paths := []string{"/ws/v1/cluster/metrics", "/ws/v1/cluster/scheduler", "/ws/v1/cluster/apps?states=RUNNING", "/ws/v1/cluster/nodes?states=RUNNING"}
	into := []any{&metrics, &sched, &apps, &nodes}
	if err := getAll(http.DefaultClient, base, paths, func(i int, body io.Reader) error { return json.NewDecoder(body).Decode(into[i]) }); err != nil {
		return exporterCounts{}, err
	}
	return exporterCounts{Nodes: len(nodes.Nodes.Node), Apps: len(apps.Apps.App), Queues: len(sched.Scheduler.SchedulerInfo.Queues.Queue),
		ActiveNodes: metrics.ClusterMetrics.ActiveNodes}, nil
}

// exporterCounts is what a scrape saw, to check it read something.
type exporterCounts struct{ Nodes, Apps, Queues, ActiveNodes int }
