package calibrate

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"
	"time"
)

func readSample(id, typ, loc string, mib float64, readSec, cpuSec float64) Sample {
	return Sample{AttemptID: id, JobID: "job_1", Class: "scan", NodeType: typ, Type: "MAP", Locality: loc,
		Bytes: int64(mib * (1 << 20)), CPU: time.Duration(cpuSec * float64(time.Second)),
		Elapsed: time.Duration((readSec + cpuSec) * float64(time.Second))}
}

// Bandwidth by locality is bytes over (elapsed − CPU), the median per node
// type and locality; a cell with too few samples stays unmeasured, an
// attempt without CPU time or locality teaches nothing.
func TestBandwidths(t *testing.T) {
	var ss []Sample
	for i, r := range []float64{1.0, 1.0, 1.1, 0.9, 4.0} { // 128 MiB at ~128 MiB/s, one outlier
		ss = append(ss, readSample("n"+string(rune('a'+i)), "storage", NodeLocal, 128, r, 2))
	}
	for i := 0; i < 3; i++ {
		ss = append(ss, readSample("r"+string(rune('a'+i)), "gpu", RackLocal, 100, 2, 1)) // 50 MiB/s
	}
	ss = append(ss, readSample("o1", "gpu", OffSwitch, 100, 5, 1)) // one sample only
	noCPU := readSample("x1", "gpu", RackLocal, 100, 1, 0)
	noLoc := readSample("x2", "gpu", "", 100, 1, 1)
	ss = append(ss, noCPU, noLoc)

	got := Bandwidths(ss, 3)
	if bw := got["storage"]; math.Abs(bw.NodeLocal-128) > 0.5 || bw.Samples[NodeLocal] != 5 {
		t.Errorf("storage node-local %+v, want 128 MiB/s from 5", bw)
	}
	bw := got["gpu"]
	if math.Abs(bw.RackLocal-50) > 0.01 || bw.Samples[RackLocal] != 3 {
		t.Errorf("gpu rack-local %+v, want 50 MiB/s from 3 (the attempt without CPU time skipped)", bw)
	}
	if bw.OffSwitch != 0 || bw.Samples[OffSwitch] != 1 {
		t.Errorf("gpu off-switch from 1 sample must stay unmeasured: %+v", bw)
	}
}

// Histories written before CPU and locality were kept still load, and
// teach no bandwidth; new samples round-trip through the store.
func TestBandwidthHistoryCompatible(t *testing.T) {
	old := `{"attempt":"attempt_1_0001_m_000000_0","job":"job_1_0001","class":"scan","nodeType":"storage","finish":"2026-01-01T00:00:00Z","elapsed":3000000000,"bytes":134217728}`
	var s Sample
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	if len(Bandwidths([]Sample{s, s, s}, 1)) != 0 {
		t.Error("an old sample without CPU time or locality taught a bandwidth")
	}
	st, err := Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in := readSample("attempt_1_0001_m_000001_0", "storage", NodeLocal, 128, 1, 2)
	if _, err := st.Add([]Sample{s, in}); err != nil {
		t.Fatal(err)
	}
	all, err := st.All()
	if err != nil || len(all) != 2 {
		t.Fatalf("%d samples, %v", len(all), err)
	}
	for _, a := range all {
		if a.AttemptID == in.AttemptID && (a.CPU != in.CPU || a.Locality != NodeLocal) {
			t.Errorf("stored sample lost CPU or locality: %+v", a)
		}
	}
}

// Processing times are the median CPU seconds per class and type.
func TestProcessingTimes(t *testing.T) {
	var ss []Sample
	for i := 0; i < 3; i++ {
		ss = append(ss, readSample("s"+string(rune('a'+i)), "storage", NodeLocal, 128, 1, 3))
		ss = append(ss, readSample("g"+string(rune('a'+i)), "gpu", RackLocal, 128, 2, 1))
	}
	p := ProcessingTimes(ss, 3)["scan"]
	if math.Abs(p.Seconds["storage"]-3) > 1e-9 || math.Abs(p.Seconds["gpu"]-1) > 1e-9 || math.Abs(p.BlockMiB-128) > 1e-9 {
		t.Errorf("processing %+v", p)
	}
}
