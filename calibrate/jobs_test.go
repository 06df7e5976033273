package calibrate

import (
	"testing"
	"time"
)

func TestJobs(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := func(job, typ, nodeType string, secs int, queue string) Sample {
		return Sample{JobID: job, Class: "sort", NodeType: nodeType, Type: typ, Elapsed: time.Duration(secs) * time.Second,
			JobMaps: 3, Queue: queue, JobStart: t0.Add(time.Minute * time.Duration(len(job)))}
	}
	all := []Sample{
		s("job_b", "MAP", "old", 10, "etl"), s("job_b", "MAP", "new", 5, "etl"), s("job_b", "MAP", "new", 7, "etl"),
		s("job_b", "REDUCE", "old", 20, "etl"), s("job_b", "REDUCE", "new", 30, "etl"),
		s("job_a", "MAP", "old", 10, "bi"),
		// Written before queues were kept: not a job the replay can place.
		s("job_c", "MAP", "old", 10, ""),
	}
	got := Jobs(all)
	if len(got) != 2 {
		t.Fatalf("%d jobs, want 2 (the one without a queue left out): %+v", len(got), got)
	}
	if got[0].JobID != "job_a" || got[1].JobID != "job_b" {
		t.Fatalf("order %s, %s: want by start", got[0].JobID, got[1].JobID)
	}
	b := got[1]
	if b.Queue != "etl" || b.Maps != 3 || b.Reduces != 2 || b.ReduceSeconds != 25 {
		t.Errorf("job_b: %+v", b)
	}
	if b.MapSeconds["new"] != 12 || b.MapCount["new"] != 2 || b.MapSeconds["old"] != 10 || b.MapCount["old"] != 1 {
		t.Errorf("job_b maps by type: %v %v", b.MapSeconds, b.MapCount)
	}
}
