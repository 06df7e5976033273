package sparkweb

import (
	"fmt"
	"strings"
	"time"
)

// Answers are built as maps: Spark's Jackson writes every field of its
// v1 classes (zeros included), and many of them are metrics the mini
// cluster does not draw, listed here by name and rendered as 0.

type obj = map[string]any

// sparkTime is Spark's REST date: ms and a literal GMT suffix.
func sparkTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000GMT")
}

func zeros(o obj, keys ...string) obj {
	for _, k := range keys {
		o[k] = 0
	}
	return o
}

// applicationInfo is ApplicationInfo with its one attempt (YARN cluster
// mode names it "1"). A running app's driver reports endTime -1.
func applicationInfo(a App, now time.Time) obj {
	end, endEpoch, dur := time.UnixMilli(-1), int64(-1), now.Sub(a.Start).Milliseconds()
	if !a.End.IsZero() {
		end, endEpoch, dur = a.End, a.End.UnixMilli(), a.End.Sub(a.Start).Milliseconds()
	}
	last := a.End
	if last.IsZero() {
		last = now
	}
	return obj{"id": a.ID, "name": a.Name, "attempts": []obj{{
		"attemptId": "1", "startTime": sparkTime(a.Start), "endTime": sparkTime(end), "lastUpdated": sparkTime(last),
		"duration": dur, "sparkUser": a.User, "completed": !a.End.IsZero(), "appSparkVersion": SparkVersion,
		"startTimeEpoch": a.Start.UnixMilli(), "endTimeEpoch": endEpoch, "lastUpdatedEpoch": last.UnixMilli(),
	}}}
}

// SparkVersion is the version the mini cluster's apps report.
const SparkVersion = "3.5.1"

// peakMetricKeys are ExecutorMetricType's names (Spark 4.x).
var peakMetricKeys = []string{"JVMHeapMemory", "JVMOffHeapMemory", "OnHeapExecutionMemory", "OffHeapExecutionMemory",
	"OnHeapStorageMemory", "OffHeapStorageMemory", "OnHeapUnifiedMemory", "OffHeapUnifiedMemory", "DirectPoolMemory",
	"MappedPoolMemory", "ProcessTreeJVMVMemory", "ProcessTreeJVMRSSMemory", "ProcessTreePythonVMemory",
	"ProcessTreePythonRSSMemory", "ProcessTreeOtherVMemory", "ProcessTreeOtherRSSMemory", "MinorGCCount", "MinorGCTime",
	"MajorGCCount", "MajorGCTime", "TotalGCTime", "ConcurrentGCCount", "ConcurrentGCTime"}

func logs(host, container, user string) obj {
	base := fmt.Sprintf("http://%s:8042/node/containerlogs/%s/%s/", host, container, user)
	return obj{"stdout": base + "stdout?start=-4096", "stderr": base + "stderr?start=-4096"}
}

// driverSummary is the driver's ExecutorSummary: no container
// attributes, no tasks; its totalDuration is the app's duration.
func driverSummary(a App, now time.Time) obj {
	end := a.End
	if end.IsZero() {
		end = now
	}
	o := obj{"id": "driver", "hostPort": a.AMHost + ":35000", "isActive": true, "totalCores": 0, "maxTasks": 0,
		"totalDuration": end.Sub(a.Start).Milliseconds(), "isBlacklisted": false, "isExcluded": false, "maxMemory": 434031820,
		"addTime": sparkTime(a.AMAdd), "executorLogs": obj{}, "attributes": obj{}, "resources": obj{}, "resourceProfileId": 0,
		"blacklistedInStages": []int{}, "excludedInStages": []int{},
		"memoryMetrics":     obj{"usedOnHeapStorageMemory": 0, "usedOffHeapStorageMemory": 0, "totalOnHeapStorageMemory": 434031820, "totalOffHeapStorageMemory": 0},
		"peakMemoryMetrics": zeros(obj{}, peakMetricKeys...)}
	return zeros(o, "rddBlocks", "memoryUsed", "diskUsed", "activeTasks", "failedTasks", "completedTasks", "totalTasks",
		"totalGCTime", "totalInputBytes", "totalShuffleRead", "totalShuffleWrite")
}

// executorSummary is one executor's ExecutorSummary, with the YARN
// container's attributes (YarnCoarseGrainedExecutorBackend).
func executorSummary(a App, e Executor) obj {
	resources := obj{}
	if e.GPUs > 0 {
		addrs := make([]string, e.GPUs)
		for i := range addrs {
			addrs[i] = fmt.Sprint(i)
		}
		resources["gpu"] = obj{"name": "gpu", "addresses": addrs}
	}
	o := obj{"id": e.ID, "hostPort": fmt.Sprintf("%s:%d", e.Host, e.Port), "isActive": e.Remove.IsZero(),
		"totalCores": e.Cores, "maxTasks": e.Cores, "activeTasks": e.ActiveTasks, "failedTasks": e.FailedTasks,
		"completedTasks": e.CompletedTasks, "totalTasks": e.ActiveTasks + e.FailedTasks + e.CompletedTasks,
		"totalDuration": e.TotalDurationMs, "totalInputBytes": e.TotalInputBytes, "isBlacklisted": false, "isExcluded": false,
		"maxMemory": e.MaxMemory, "addTime": sparkTime(e.Add), "executorLogs": logs(e.Host, e.ContainerID, a.User),
		"memoryMetrics":       obj{"usedOnHeapStorageMemory": 0, "usedOffHeapStorageMemory": 0, "totalOnHeapStorageMemory": e.MaxMemory, "totalOffHeapStorageMemory": 0},
		"blacklistedInStages": []int{}, "excludedInStages": []int{}, "peakMemoryMetrics": zeros(obj{}, peakMetricKeys...),
		"attributes": obj{"NM_HTTP_ADDRESS": e.Host + ":8042", "USER": a.User, "LOG_FILES": "stderr,stdout", "NM_HTTP_PORT": "8042",
			"CLUSTER_ID": "", "NM_PORT": "8041", "HTTP_SCHEME": "http://", "NM_HOST": e.Host, "CONTAINER_ID": e.ContainerID},
		"resources": resources, "resourceProfileId": 0}
	if !e.Remove.IsZero() {
		o["removeTime"], o["removeReason"] = sparkTime(e.Remove), e.RemoveReason
	}
	return zeros(o, "rddBlocks", "memoryUsed", "diskUsed", "totalGCTime", "totalShuffleRead", "totalShuffleWrite")
}

// taskData is TaskData.
func taskData(t Task, now time.Time) obj {
	end := t.Finish
	if end.IsZero() {
		end = now
	}
	m := zeros(obj{"executorDeserializeTime": t.DeserializeMs, "executorRunTime": t.RunMs, "executorCpuTime": t.CPUNs,
		"resultSerializationTime": t.ResultSerMs,
		"inputMetrics":            obj{"bytesRead": t.InputBytes, "recordsRead": 0},
		"outputMetrics":           obj{"bytesWritten": 0, "recordsWritten": 0},
		"shuffleReadMetrics": zeros(obj{"shufflePushReadMetrics": zeros(obj{}, "corruptMergedBlockChunks", "mergedFetchFallbackCount",
			"remoteMergedBlocksFetched", "localMergedBlocksFetched", "remoteMergedChunksFetched", "localMergedChunksFetched",
			"remoteMergedBytesRead", "localMergedBytesRead", "remoteMergedReqsDuration")},
			"remoteBlocksFetched", "localBlocksFetched", "fetchWaitTime", "remoteBytesRead", "remoteBytesReadToDisk", "localBytesRead",
			"recordsRead", "remoteReqsDuration"),
		"shuffleWriteMetrics": obj{"bytesWritten": 0, "writeTime": 0, "recordsWritten": 0}},
		"executorDeserializeCpuTime", "resultSize", "jvmGcTime", "memoryBytesSpilled", "diskBytesSpilled", "peakExecutionMemory",
		"peakOnHeapExecutionMemory", "peakOffHeapExecutionMemory")
	o := obj{"taskId": t.TaskID, "index": t.Index, "attempt": t.Attempt, "partitionId": t.Index, "launchTime": sparkTime(t.Launch),
		"duration": end.Sub(t.Launch).Milliseconds(), "executorId": t.ExecutorID, "host": t.Host, "status": t.Status,
		"taskLocality": t.Locality, "speculative": t.Speculative, "accumulatorUpdates": []any{}, "taskMetrics": m,
		"executorLogs": logs(t.Host, t.ContainerID, "spark"), "schedulerDelay": t.DelayMs, "gettingResultTime": 0}
	if t.Status == "RUNNING" {
		o["duration"] = now.Sub(t.Launch).Milliseconds()
	}
	if t.ErrorMessage != "" {
		o["errorMessage"] = t.ErrorMessage
	}
	return o
}

// stageSums are a stage's task totals.
type stageSums struct {
	active, complete, failed, killed, indices int
	run, deser, resultSer, cpu, input         int64
	killedWhy                                 map[string]int
	spec                                      obj
}

func sumStage(s Stage) stageSums {
	var x stageSums
	x.killedWhy = map[string]int{}
	done := map[int]bool{}
	var specN, specActive, specDone, specFailed, specKilled int
	for _, t := range s.Tasks {
		switch t.Status {
		case "RUNNING":
			x.active++
		case "SUCCESS":
			x.complete++
			done[t.Index] = true
		case "FAILED":
			x.failed++
		case "KILLED":
			x.killed++
			x.killedWhy[t.ErrorMessage]++
		}
		if t.Status != "RUNNING" {
			x.run += t.RunMs
			x.deser += t.DeserializeMs
			x.resultSer += t.ResultSerMs
			x.cpu += t.CPUNs
			x.input += t.InputBytes
		}
		if t.Speculative {
			specN++
			switch t.Status {
			case "RUNNING":
				specActive++
			case "SUCCESS":
				specDone++
			case "FAILED":
				specFailed++
			case "KILLED":
				specKilled++
			}
		}
	}
	x.indices = len(done)
	if specN > 0 {
		x.spec = obj{"numTasks": specN, "numActiveTasks": specActive, "numCompletedTasks": specDone, "numFailedTasks": specFailed, "numKilledTasks": specKilled}
	}
	return x
}

// stageData is StageData; details adds the stage attempt's tasks (keyed
// by task id) and executorSummary (keyed by executor id).
func stageData(a App, s Stage, now time.Time, details bool) obj {
	x := sumStage(s)
	o := obj{"status": s.Status, "stageId": s.ID, "attemptId": s.Attempt, "numTasks": s.NumTasks, "numActiveTasks": x.active,
		"numCompleteTasks": x.complete, "numFailedTasks": x.failed, "numKilledTasks": x.killed, "numCompletedIndices": x.indices,
		"executorDeserializeTime": x.deser, "executorRunTime": x.run, "executorCpuTime": x.cpu, "resultSerializationTime": x.resultSer,
		"inputBytes": x.input, "name": s.Name, "details": "org.apache.spark.sql.Dataset." + strings.SplitN(s.Name, " ", 2)[0] + "(Dataset.scala:1)",
		"schedulingPool": "default", "rddIds": []int{s.ID}, "accumulatorUpdates": []any{}, "killedTasksSummary": x.killedWhy,
		"resourceProfileId": 0, "peakExecutorMetrics": zeros(obj{}, peakMetricKeys...), "isShufflePushEnabled": false}
	if !s.Submission.IsZero() {
		o["submissionTime"] = sparkTime(s.Submission)
	}
	if !s.FirstLaunch.IsZero() {
		o["firstTaskLaunchedTime"] = sparkTime(s.FirstLaunch)
	}
	if !s.Completion.IsZero() {
		o["completionTime"] = sparkTime(s.Completion)
	}
	zeros(o, "executorDeserializeCpuTime", "resultSize", "jvmGcTime", "memoryBytesSpilled", "diskBytesSpilled",
		"peakExecutionMemory", "peakOnHeapExecutionMemory", "peakOffHeapExecutionMemory", "inputRecords", "outputBytes",
		"outputRecords", "shuffleRemoteBlocksFetched", "shuffleLocalBlocksFetched", "shuffleFetchWaitTime", "shuffleRemoteBytesRead",
		"shuffleRemoteBytesReadToDisk", "shuffleLocalBytesRead", "shuffleReadBytes", "shuffleReadRecords",
		"shuffleCorruptMergedBlockChunks", "shuffleMergedFetchFallbackCount", "shuffleMergedRemoteBlocksFetched",
		"shuffleMergedLocalBlocksFetched", "shuffleMergedRemoteChunksFetched", "shuffleMergedLocalChunksFetched",
		"shuffleMergedRemoteBytesRead", "shuffleMergedLocalBytesRead", "shuffleRemoteReqsDuration", "shuffleMergedRemoteReqsDuration",
		"shuffleWriteBytes", "shuffleWriteTime", "shuffleWriteRecords", "shuffleMergersCount")
	if !details {
		return o
	}
	if x.spec != nil {
		o["speculationSummary"] = x.spec
	}
	tasks := obj{}
	perExec := map[string]obj{}
	for _, t := range s.Tasks {
		tasks[fmt.Sprint(t.TaskID)] = taskData(t, now)
		es := perExec[t.ExecutorID]
		if es == nil {
			es = zeros(obj{"isBlacklistedForStage": false, "isExcludedForStage": false, "peakMemoryMetrics": zeros(obj{}, peakMetricKeys...)},
				"taskTime", "failedTasks", "succeededTasks", "killedTasks", "inputBytes", "inputRecords", "outputBytes", "outputRecords",
				"shuffleRead", "shuffleReadRecords", "shuffleWrite", "shuffleWriteRecords", "memoryBytesSpilled", "diskBytesSpilled")
			perExec[t.ExecutorID] = es
		}
		end := t.Finish
		if end.IsZero() {
			end = now
		}
		es["taskTime"] = es["taskTime"].(int) + int(end.Sub(t.Launch).Milliseconds())
		switch t.Status {
		case "SUCCESS":
			es["succeededTasks"] = es["succeededTasks"].(int) + 1
			es["inputBytes"] = es["inputBytes"].(int) + int(t.InputBytes)
		case "FAILED":
			es["failedTasks"] = es["failedTasks"].(int) + 1
		case "KILLED":
			es["killedTasks"] = es["killedTasks"].(int) + 1
		}
	}
	execs := obj{}
	for id, es := range perExec {
		execs[id] = es
	}
	o["tasks"], o["executorSummary"] = tasks, execs
	return o
}

// jobData is the app's one job (JobData) over all its stages.
func jobData(a App) obj {
	var ids []int
	var tasks, active, completed, failed, killed, indices, activeStages, completeStages int
	status := "SUCCEEDED"
	killedWhy := map[string]int{}
	for _, s := range a.Stages {
		ids = append(ids, s.ID)
		x := sumStage(s)
		tasks += s.NumTasks
		active, completed, failed, killed, indices = active+x.active, completed+x.complete, failed+x.failed, killed+x.killed, indices+x.indices
		for k, v := range x.killedWhy {
			killedWhy[k] += v
		}
		switch s.Status {
		case "ACTIVE":
			activeStages++
		case "COMPLETE":
			completeStages++
		}
		if s.Status != "COMPLETE" {
			status = "RUNNING"
		}
	}
	return zeros(obj{"jobId": 0, "name": a.Name, "stageIds": ids, "jobTags": []string{}, "status": status, "numTasks": tasks,
		"numActiveTasks": active, "numCompletedTasks": completed, "numFailedTasks": failed, "numKilledTasks": killed,
		"numCompletedIndices": indices, "numActiveStages": activeStages, "numCompletedStages": completeStages,
		"killedTasksSummary": killedWhy}, "numSkippedTasks", "numSkippedStages", "numFailedStages")
}

// yarnAM is the AM's MiscellaneousProcessDetails.
func yarnAM(a App) obj {
	return obj{"id": "yarn-am", "hostPort": a.AMHost + ":8042", "isActive": a.End.IsZero(), "totalCores": 1,
		"addTime": sparkTime(a.AMAdd), "processLogs": logs(a.AMHost, a.AMContainer, a.User)}
}
