package experiment

import (
	"testing"
)

// TestShieldBeforeTheKills (issue 37): on shield-return, an RM with the
// recorded cluster's preemption timing (3 s monitor, 10 s
// max_wait_before_kill), the sidecar steers adhoc's crypto onto the GPU
// node while its owner ml is idle; ml's train job comes back at 4 min.
// With the shield, adhoc's shield lands in the same mutation as its route,
// before the first kill the same run makes without a shield, and the RM
// kills none of adhoc's containers; without it, the RM kills some. The
// shield lands on adhoc only: never on ml, the owner that reclaims its
// guarantee there (below it while it asks), nor on etl, which is not
// steered.
func TestShieldBeforeTheKills(t *testing.T) {
	const steered = "root.adhoc"
	with, err := RunShield("shield-return", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	without, err := RunShield("shield-return", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	route, ok := with.RouteAt[steered]
	if !ok {
		t.Fatalf("the sidecar never steered %s (routes %v): the scenario no longer tests the shield", steered, with.RouteAt)
	}
	at, ok := with.ShieldAt[steered]
	if !ok || !with.Together[steered] || !at.Equal(route) {
		t.Fatalf("%s: route at %v, shield at %v (landed: %v), same mutation %v: want the shield with the route", steered, route, at, ok, with.Together[steered])
	}
	for q := range with.ShieldAt {
		if q != steered {
			t.Errorf("shield on %s: only the steered queue %s borrows on the GPU node", q, steered)
		}
	}
	if without.Killed[steered] == 0 {
		t.Fatalf("without the shield the RM killed none of %s's containers (kills %v): the scenario no longer shows the shield matters", steered, without.Killed)
	}
	if first := without.FirstKill[steered]; !at.Before(first) {
		t.Errorf("shield at %v, not before the first kill without it (%v)", at, first)
	}
	if n := with.Killed[steered]; n != 0 {
		t.Errorf("with the shield the RM killed %d of %s's containers, want 0 (without: %d)", n, steered, without.Killed[steered])
	}
	t.Logf("%s routed and shielded at %s; kills of its containers: %d with the shield, %d without (first at %s)", steered,
		at.Format("15:04:05"), with.Killed[steered], without.Killed[steered], without.FirstKill[steered].Format("15:04:05"))
}
