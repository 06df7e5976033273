package decide

import (
	"fmt"
	"reflect"
	"slices"
)

// What the plan optimises (issue 32 item 3), in one place.
//
// Objective: the PS-fair plan (Lee eq. 4.1; progress.Plan, Lee's
// Algorithm 2 lifted to queues × partitions) — maximise ΣPS, the sum over
// queues of the progress their containers make at the calibrated computing
// rates CR(node type, class), subject to each queue's PS staying at least
// its fair share (the min-PS constraint), over the capacities of every
// sibling group in every partition and the leaves' homes.
//
// Constraints, each a step below:
//   - the admin's guarantee bands (guarantee bands) and ceilings (ceilings);
//   - deadlines: goal jobs at risk are weighted first and reserved the
//     containers their outlook needs (deadline weighting, goal jobs
//     arriving, goal route, served first, goal jobs keep what they run,
//     deadline reservations; Polo, Malekimajd);
//   - do no harm: no running class predicted slower than under the admin's
//     own configuration by more than safety.harm_margin_percent (do no
//     harm), no route to where a class the queue ran is measured slower
//     (route slows no class), the plan lends only what was idle (lend
//     only idle), and calibration risks a bounded sample (PS plan);
//   - stability: no move back within rate.reversal_hold (reversal hold),
//     no move under rate.min_move_points (small moves; both off unless set);
//   - what the RM will do with the result: the work its preemption would
//     throw away (preemption, preemption shield) and how the tree can be
//     written (mode encoding).
// The rest are the plan's inputs (slots, rates, demand) and the shape of
// its output (hierarchical shares, targets, restores, calibrationReturn,
// rack-locality reset, priorities).
//
// The optimum itself is a greedy (progress.Plan); its gap against an LP
// on the same instance is measured by `make bench` (area deadline, row
// "(P2) greedy at 1,000 classes vs LP").

// stepContract is what a decision step is for and which parts of the
// decision state (decideState's fields) it reads and writes. Every step in
// PSDecider.steps has exactly one; TestStepContracts checks the reads
// against the step's code and the writes against what each step changed
// in whole decisions.
type stepContract struct {
	Purpose string
	Reads   []string
	Writes  []string
}

// stepContracts, by step name.
var stepContracts = map[string]stepContract{
	"slots": {"count each partition's planning slots per node type",
		[]string{"Snap", "Types", "Slot"}, []string{"Parts"}},
	"rates": {"expose the calibrated rates CR(node type, class), with read costs where known",
		[]string{"Snap", "Table", "Types", "ClassOf"}, []string{"Rates", "Notes"}},
	"demand": {"turn each steerable leaf into a planner queue: weight, demand, class mix, home",
		[]string{"Snap", "Live", "Tree", "Slot", "ClassOf"}, []string{"Queues", "Notes"}},
	"spark apps in the plan": {"weigh running Spark apps by their tasks left and plan GPU executors at their own rates",
		[]string{"Snap", "Queues", "ClassOf", "Rates"}, []string{"Queues", "Rates", "Notes"}},
	"calibrationSampled": {"mark queues whose calibration sample ran, so they are not sent again",
		[]string{"Snap", "Tree", "Queues", "ClassOf"}, []string{"Queues", "Sampled", "Notes"}},
	"deadline weighting": {"run the deadline outlook and weigh queues with jobs at risk first (Polo)",
		[]string{"Snap", "Tree", "Types", "ClassOf", "Parts", "Queues", "Slot", "Rates"}, []string{"Deadlines", "Queues"}},
	"goal jobs arriving": {"claim containers for goal jobs whose AM has not reported its tasks yet",
		[]string{"Snap", "Tree", "ClassOf", "Deadlines", "Parts", "Slot"}, []string{"Arriving", "Notes"}},
	"small moves": {"keep a capacity whose move is under rate.min_move_points at its live value",
		[]string{"Tree", "Queues", "Deadlines", "Arriving", "Holding", "Urgent", "Restores"}, []string{"Targets", "Notes"}},
	"PS plan": {"the PS-fair plan: maximise ΣPS with min-PS fairness (Lee eq. 4.1, Algorithm 2)",
		[]string{"Tree", "Parts", "Queues", "Rates"}, []string{"Plan", "Calibrations"}},
	"route gain": {"keep queues of small jobs home unless the route gains their completion",
		[]string{"Snap", "Tree", "Parts", "Queues", "Rates", "Deadlines"}, []string{"Plan", "Notes"}},
	"goal route": {"route goal jobs' queues where their outlook is met soonest",
		[]string{"Deadlines", "Parts", "Queues", "Rates"}, []string{"Plan"}},
	"served first": {"keep small interactive queues at their guarantee where they run",
		[]string{"Tree", "Parts", "Queues"}, []string{"Plan"}},
	"goal jobs keep what they run": {"claim what running goal jobs hold, so a cut does not preempt them",
		[]string{"Snap", "Deadlines", "Parts", "Plan"}, []string{"Holding"}},
	"deadline reservations": {"reserve in each queue's home the containers its goal jobs need (EDF)",
		[]string{"Snap", "Tree", "Deadlines", "Arriving", "Holding", "Parts", "Queues"}, []string{"Plan", "Urgent", "Notes"}},
	"hierarchical shares": {"turn the leaves' planned shares into shares for the whole tree",
		[]string{"Tree", "Plan"}, []string{"Shares"}},
	"targets": {"turn shares into each queue's percentage of its parent per partition, and homes",
		[]string{"Tree", "Plan", "Shares"}, []string{"Targets"}},
	"idle cluster": {"plan nothing while no queue has demand and no goal job is arriving",
		[]string{"Queues", "Arriving", "Targets"}, []string{"Targets", "Notes"}},
	"ceilings": {"keep the admin's maximum-capacity unless allowed to raise it",
		[]string{"Tree"}, []string{"Targets"}},
	"calibrationReturn": {"send idle queues home from a calibration that showed no gain",
		[]string{"Tree", "Parts", "Queues", "Rates"}, []string{"Targets", "Notes"}},
	"restores": {"mark moves back to the admin's home or guarantee, and raises for goal jobs",
		[]string{"Tree", "Deadlines", "Targets"}, []string{"Restores"}},
	"guarantee bands": {"clamp every target into the admin's band, the group's sum unchanged",
		[]string{"Tree"}, []string{"Targets", "Notes"}},
	"reversal hold": {"do not move a value back against its last change within the hold",
		[]string{"Snap", "Tree", "Queues", "Deadlines", "Arriving", "Holding", "Urgent", "Restores"}, []string{"Targets", "Notes"}},
	"route slows no class": {"keep a leaf home where a class it ran within the window is measured slower than in its admin's home",
		[]string{"Snap", "Tree", "Parts", "Queues", "Rates", "Urgent"}, []string{"Targets", "Restores", "Notes"}},
	"do no harm": {"cut the plan back until no running class is predicted slower than under the admin's configuration",
		[]string{"Tree", "Parts", "Queues", "Rates", "Plan", "Deadlines", "Urgent", "Arriving", "Holding"}, []string{"Targets", "Repairs", "Notes"}},
	"lend only idle": {"keep busy queues at the admin's guarantee; a route stands only where the partition's own queues leave slots idle",
		[]string{"Snap", "Tree", "Parts", "Queues", "Urgent", "Arriving", "Holding"}, []string{"Targets", "Restores", "Notes"}},
	"preemption": {"bound the work the RM's preemption would throw away because of the plan",
		[]string{"Snap", "Live", "Slot", "Types", "ClassOf", "Rates", "Plan"}, []string{"Targets", "Preemption", "Notes"}},
	"preemption shield": {"keep work steered into a partition from being preempted when its owners return",
		[]string{"Snap", "Live", "Tree", "ClassOf", "Rates", "Parts", "Preemption"}, []string{"Targets", "Notes"}},
	"mode encoding": {"say how each sibling group is written: percentages, weights or absolute",
		[]string{"Snap", "Tree"}, []string{"Targets", "Notes"}},
	"rack-locality reset": {"turn off rack-locality-full-reset when queues are routed to labelled partitions",
		[]string{"Live", "Plan", "Targets", "Parts"}, []string{"Globals"}},
	"replay plan": {"the replay strategy: the configuration a replay of the history's jobs predicts best with no class slower, held for the hour",
		[]string{"Snap", "Tree", "Parts", "Rates"}, []string{"Plan", "Targets", "Notes"}},
	"replay lend": {"the replay strategy's calibration: one node of an idle exclusive partition lent to the default partition until its classes are measured there",
		[]string{"Snap", "Slot", "Tree", "Types", "Rates", "Parts", "Targets"}, []string{"Lend", "Notes"}},
	"priorities": {"raise the app priority of jobs at risk of missing their deadline",
		[]string{"Snap", "Deadlines"}, []string{"Priorities"}},
}

// stateFields prints every field of the state (fmt prints maps sorted), so
// that two prints differ exactly where a field changed. For
// PSDecider.CheckStepWrites only: it costs a print of the whole snapshot
// per step.
func stateFields(s *decideState) map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Func {
			out[v.Type().Field(i).Name] = fmt.Sprint(f.IsNil())
			continue
		}
		out[v.Type().Field(i).Name] = fmt.Sprintf("%+v", f.Interface())
	}
	return out
}

// checkWrites fails when a step changed a field its contract does not
// list among its writes.
func checkWrites(step string, before, after map[string]string) error {
	c, ok := stepContracts[step]
	if !ok {
		return fmt.Errorf("decide step %s has no contract (step_contracts.go)", step)
	}
	for name, b := range before {
		if after[name] != b && !slices.Contains(c.Writes, name) {
			return fmt.Errorf("decide step %s changed %s, which its contract does not list among its writes", step, name)
		}
	}
	return nil
}
