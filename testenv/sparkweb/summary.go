package sparkweb

import (
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// taskSummary is TaskMetricDistributions over a stage attempt's
// successful tasks at the asked quantiles (default 0.05,0.25,0.5,0.75,0.95);
// a bad quantile is a 400 (HistoryServerSuite). Metrics the simulation
// does not draw are arrays of zeros.
func taskSummary(w http.ResponseWriter, get func(string) string, st Stage, now time.Time) {
	qs := []float64{0.05, 0.25, 0.5, 0.75, 0.95}
	if v := get("quantiles"); v != "" {
		qs = nil
		for _, p := range strings.Split(v, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || f < 0 || f > 1 {
				badParam(w, "quantiles", v)
				return
			}
			qs = append(qs, f)
		}
	}
	var ok []Task
	for _, t := range st.Tasks {
		if t.Status == "SUCCESS" {
			ok = append(ok, t)
		}
	}
	dist := func(f func(Task) float64) []float64 {
		vals := make([]float64, len(ok))
		for i, t := range ok {
			vals[i] = f(t)
		}
		sort.Float64s(vals)
		out := make([]float64, len(qs))
		for i, q := range qs {
			if len(vals) > 0 {
				// Spark's Distribution: the value at index q·(n−1), rounded.
				out[i] = vals[int(math.Min(float64(len(vals)-1), math.Round(q*float64(len(vals)-1))))]
			}
		}
		return out
	}
	zero := dist(func(Task) float64 { return 0 })
	zeroObj := func(keys ...string) obj {
		o := obj{}
		for _, k := range keys {
			o[k] = zero
		}
		return o
	}
	o := zeroObj("executorDeserializeCpuTime", "resultSize", "jvmGcTime", "gettingResultTime", "peakExecutionMemory",
		"peakOnHeapExecutionMemory", "peakOffHeapExecutionMemory", "memoryBytesSpilled", "diskBytesSpilled")
	o["quantiles"] = qs
	o["duration"] = dist(func(t Task) float64 { return float64(t.Finish.Sub(t.Launch).Milliseconds()) })
	o["executorDeserializeTime"] = dist(func(t Task) float64 { return float64(t.DeserializeMs) })
	o["executorRunTime"] = dist(func(t Task) float64 { return float64(t.RunMs) })
	o["executorCpuTime"] = dist(func(t Task) float64 { return float64(t.CPUNs) })
	o["resultSerializationTime"] = dist(func(t Task) float64 { return float64(t.ResultSerMs) })
	o["schedulerDelay"] = dist(func(t Task) float64 { return float64(t.DelayMs) })
	in := zeroObj("recordsRead")
	in["bytesRead"] = dist(func(t Task) float64 { return float64(t.InputBytes) })
	o["inputMetrics"] = in
	o["outputMetrics"] = zeroObj("bytesWritten", "recordsWritten")
	sr := zeroObj("readBytes", "readRecords", "remoteBlocksFetched", "localBlocksFetched", "fetchWaitTime", "remoteBytesRead",
		"remoteBytesReadToDisk", "totalBlocksFetched", "remoteReqsDuration")
	sr["shufflePushReadMetricsDist"] = zeroObj("corruptMergedBlockChunks", "mergedFetchFallbackCount", "remoteMergedBlocksFetched",
		"localMergedBlocksFetched", "remoteMergedChunksFetched", "localMergedChunksFetched", "remoteMergedBytesRead",
		"localMergedBytesRead", "remoteMergedReqsDuration")
	o["shuffleReadMetrics"] = sr
	o["shuffleWriteMetrics"] = zeroObj("writeBytes", "writeRecords", "writeTime")
	writeJSON(w, o)
}
