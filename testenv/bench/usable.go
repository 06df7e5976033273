package main

import "github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"

// The usable-capacity bound (issue 16). Lee's ΣPS bound (digest 000 §1.3,
// eq. 4.1) gives every slot of the cluster to the job that gains most from
// it; in his model a slot is a task slot and nothing else holds one. In
// lee-toy one container of 4 GB / 1 vcore is a slot (the scenario's maps),
// yet the old bound counts 2 GB / 1 vcore slots (N1 2, N2 4, am node 2) and
// counts the slots the two AMs (1.5 GB / 1 vcore each) sit on. With both
// AMs on N1 (8 GB / 2 vcores) no map fits there at all and the am node
// takes one map, so a ΣPS of 100% of the old bound cannot be reached by any
// placement. The usable bound (progress.Shares.UsableBound) counts, per
// node, the job's own task containers that fit beside the AMs; a job's task
// size is its map request from the job's conf (mapreduce.map.memory.mb,
// read once per job), else measured from its allocation ((allocated − AM)
// / tasks), and only a job whose conf is unread and runs no task yet falls
// back to the configured 2 GB slot (a stand-in that makes the usable bound
// larger, not smaller). ΣPS is the same in both rows. The old row stays as
// it was, so the goal is not moved.

// usableShare is the time average of ΣPS / usable bound over the cycles in
// which at least minJobs jobs ran (0 when no cycle had a usable bound).
func usableShare(r experiment.Result, minJobs int) float64 {
	sum, bound := 0.0, 0.0
	for _, p := range r.PS {
		if len(p.Jobs) < minJobs || p.UsableBound == 0 {
			continue
		}
		sum += p.SumPS
		bound += p.UsableBound
	}
	if bound == 0 {
		return 0
	}
	return sum / bound
}

func meanUsableShare(rs []experiment.Result) float64 {
	v := 0.0
	for _, r := range rs {
		v += usableShare(r, 2) / float64(len(rs))
	}
	return v
}
