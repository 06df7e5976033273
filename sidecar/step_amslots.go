package sidecar

import "github.com/yarn-sidecar/yarn-sidecar/progress"

// amSlotsStep takes the running AM containers off the planning slots (issue
// 16): an AM holds its node's memory and vcores for its job's whole run and
// the RM preempts AMs last, so a slot under an AM runs no task. Without it
// the planner counted N1's slots in lee-toy while the two AMs held both of
// its vcores, sent job A there (Lee Alg. 2: A is 3× faster on N1) and A ran
// no map for most of the run. Lee's model (digest 000 §1.3) has no AMs; his
// slots are the task slots this step leaves.
type amSlotsStep struct{}

func (amSlotsStep) Name() string { return "am-slots" }

func (amSlotsStep) Run(s *decideState) error {
	free := progress.NodesFreeOfAMs(s.Snap) // usable nodes only
	byID := s.Snap.NodeByID()
	byName := map[string]int{}
	for i, p := range s.Parts {
		byName[p.Name] = i
	}
	for _, p := range s.Snap.Partitions {
		i, ok := byName[p.Name]
		if !ok {
			continue
		}
		slots := map[string]int64{}
		for _, id := range p.NodeIDs {
			if r, ok := free[id]; ok {
				slots[s.Types[id]] += r.Fits(s.Slot)
			} else if n, ok := byID[id]; ok { // as slotsStep counts it
				slots[s.Types[id]] += n.Total.Fits(s.Slot)
			}
		}
		s.Parts[i].Slots = slots
	}
	return nil
}
