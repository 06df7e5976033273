package decide

import (
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// adminValues are the admin's values of what a plan may write, keyed like
// SetBy (ProvenanceKey: queue and property): each queue's capacity and
// maximum-capacity per partition and its home, as first seen. The plan
// carries them beside each change (plan.Change.Admin), so the rate limit
// can tell a plan that only gives back what the sidecar moved
// (act.ReturnsOnly). A value the admin never set (Unset) is not the
// admin's and is left out.
func adminValues(seen map[string]SeenValue) map[string]string {
	out := make(map[string]string, 3*len(seen))
	for k, v := range seen {
		queue, part, ok := strings.Cut(k, "\x00")
		if !ok || v.Unset || v.Raw == "" {
			continue
		}
		out[ProvenanceKey(queue, plan.CapacityProp(part))] = v.Raw
		if v.MaxShare != nil {
			out[ProvenanceKey(queue, plan.MaxCapacityProp(part))] = plan.FormatPercent(*v.MaxShare)
		}
		if v.Home != nil && part == "" {
			out[ProvenanceKey(queue, "default-node-label-expression")] = *v.Home
		}
	}
	return out
}
