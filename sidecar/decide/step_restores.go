package decide

import (
	"fmt"
	"maps"
	"slices"
)

// restoresStep names the leaves whose targets route them back to the
// admin's home partition or raise them back toward the admin's guarantee
// in their home (their live share is below the first-seen share), and the
// leaves with a goal job whose target
// raises them: the moves the rate limit keeps the last of its hourly
// budget for (RateLimit.Reserved). Spending the whole budget on ΣPS moves
// left shift's features queue squeezed for the rest of the hour (issue 18).
// Runs on the targets before the bands; RateLimit checks the change the
// plan writes.
//
// Ablation (issue 32: keep a step only if removing it costs a held-out
// figure), on the tuning clusters 1–8 (gen.TuningSeeds), one run seed, at
// 732e70b: go run ./testenv/bench -only heldout -heldout-tuning -heldout-n 8
// -heldout-ablate "route gain,goal route,served first,goal jobs keep what
// they run,calibrationReturn,restores" (26 min wall on a shared 2-CPU
// machine; full sidecar: 2/8 clusters with a class >5% slower than stock,
// 3/8 >2%, mean 0.667× stock, 0.881× best static, worst class 1.48×, 10.92
// reversals/queue-hour): removing it costs one cluster over 5% (3/8 against
// 2/8) and the mean, 0.673× stock and 0.898× best static against 0.667× and
// 0.881× (1.009× the full sidecar's), and gains elsewhere: worst class 1.37×
// against 1.48×, 9.57 reversals/queue-hour against 10.92.
type restoresStep struct {
	Seen map[string]SeenValue
}

func (restoresStep) Name() string { return "restores" }

func (st restoresStep) Run(s *decideState) error {
	goal := queuesWithGoals(s.Deadlines)
	out := map[string]string{}
	for _, path := range slices.Sorted(maps.Keys(s.Targets)) {
		t := s.Targets[path]
		q, ok := s.Tree.ByPath[path]
		if !ok || len(q.Children) > 0 {
			continue
		}
		home := q.DefaultLabelExpression
		if t.DefaultLabelExpression != nil {
			home = *t.DefaultLabelExpression
		}
		if v := st.Seen[SeenKey(path, "")]; v.Home != nil && *v.Home == home && q.DefaultLabelExpression != home {
			out[path] = fmt.Sprintf("back to its home partition %q (the admin's default-node-label-expression)", home)
			continue
		}
		to, ok := t.Capacity[home]
		if !ok {
			continue
		}
		live := q.ShareOfParent(home)
		if to <= live+0.005 {
			continue
		}
		if v, ok := st.Seen[SeenKey(path, home)]; ok && !v.Unset && live < v.Share-0.005 {
			out[path] = fmt.Sprintf("back toward the admin's guarantee in %q: %.2f%% → %.2f%% of its parent (promised %.2f%%)", home, live, to, v.Share)
			continue
		}
		if goal[path] {
			out[path] = fmt.Sprintf("raised in %q for its jobs with goals: %.2f%% → %.2f%% of its parent", home, live, to)
		}
	}
	if len(out) > 0 {
		s.Restores = out
	}
	return nil
}
