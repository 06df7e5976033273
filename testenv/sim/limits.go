package sim

import "fmt"

// Bounds on a scenario: yarnsim takes scenario files from users, and a
// typo (count: 60000000) must be an error naming the field, not a process
// that allocates until the kernel kills it. The largest shipped scenario
// (scale-10k) is well inside them.
const (
	MaxScenarioBytes = 8 << 20
	MaxNodes         = 100_000
	MaxRacks         = 10_000
	MaxJobs          = 1_000_000 // jobs × repeat + generator counts
	MaxMapsPerJob    = 1_000_000
	MaxReducesPerJob = 100_000
)

func (sc *Scenario) limits() []string {
	var bad []string
	nodes := 0
	for i, nt := range sc.NodeTypes {
		if nt.Count > MaxNodes {
			bad = append(bad, fmt.Sprintf("node_types[%d].count: %d is above %d", i, nt.Count, MaxNodes))
			continue
		}
		nodes += nt.Count
	}
	if nodes > MaxNodes {
		bad = append(bad, fmt.Sprintf("node_types: %d nodes in all, above %d", nodes, MaxNodes))
	}
	if sc.Racks < 0 || sc.Racks > MaxRacks {
		bad = append(bad, fmt.Sprintf("racks: %d is outside 0..%d", sc.Racks, MaxRacks))
	}
	jobs := 0
	for i, j := range sc.Jobs {
		if j.Maps > MaxMapsPerJob || j.Reduces > MaxReducesPerJob || j.Reduces < 0 {
			bad = append(bad, fmt.Sprintf("jobs[%d]: maps %d / reduces %d outside 1..%d / 0..%d", i, j.Maps, j.Reduces, MaxMapsPerJob, MaxReducesPerJob))
		}
		if j.Repeat < 0 || j.Repeat > MaxJobs {
			bad = append(bad, fmt.Sprintf("jobs[%d].repeat: %d is outside 0..%d", i, j.Repeat, MaxJobs))
			continue
		}
		jobs += 1 + j.Repeat
	}
	for i, g := range sc.Generators {
		if g.Count < 0 || g.Count > MaxJobs || g.MapsMax > MaxMapsPerJob || g.Reduces < 0 || g.Reduces > MaxReducesPerJob {
			bad = append(bad, fmt.Sprintf("generators[%d]: count %d, maps_max %d, reduces %d: above the bounds (%d jobs, %d maps, %d reduces)",
				i, g.Count, g.MapsMax, g.Reduces, MaxJobs, MaxMapsPerJob, MaxReducesPerJob))
			continue
		}
		jobs += g.Count
	}
	if jobs > MaxJobs {
		bad = append(bad, fmt.Sprintf("jobs: %d in all (with repeats and generators), above %d", jobs, MaxJobs))
	}
	return bad
}
