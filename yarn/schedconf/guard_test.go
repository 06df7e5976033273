package schedconf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const realDir = "testdata/real-3.3.6"

// realLive is the real RM's configuration before each recorded request: the
// whole resulting configuration the RM's validate returned for
// unknownqueue.xml, minus the one property that request wrote.
func realLive(t *testing.T) Conf {
	t.Helper()
	c := realConf(t, "validate_unknownqueue.body")
	if c[Key("root.nosuch", "capacity")] != "10" {
		t.Fatalf("recording changed: root.nosuch.capacity = %q", c[Key("root.nosuch", "capacity")])
	}
	delete(c, Key("root.nosuch", "capacity"))
	return c
}

func realConf(t *testing.T, name string) Conf {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDir, name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfInfo(b, "application/json")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

func realBody(t *testing.T, name string) Mutation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDir, "bodies", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseMutation(b, "application/xml")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// The real RM's validate answers with the whole resulting configuration:
// ApplyAsHadoop must produce exactly that, including for the two requests
// Hadoop accepts wrongly.
func TestApplyAsHadoopMatchesRecordedValidate(t *testing.T) {
	live := realLive(t)
	for _, name := range []string{"valid", "unknownqueue", "unknownlabel", "addqueue"} {
		t.Run(name, func(t *testing.T) {
			got, err := live.ApplyAsHadoop(realBody(t, name+".xml"))
			if err != nil {
				t.Fatal(err)
			}
			want := realConf(t, "validate_"+name+".body")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ApplyAsHadoop differs from the real RM's resulting configuration\n got %v\nwant %v", got, want)
			}
		})
	}
}

// CheckMutation refuses what the real RM accepted wrongly, and passes what it
// handled right (leaving capacity checks to Validate).
func TestCheckMutationRecordedBodies(t *testing.T) {
	live := realLive(t)
	b, err := os.ReadFile(filepath.Join(realDir, "rm_get-node-labels.body"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"name":"gpu"`) {
		t.Fatalf("recording changed: %s", b)
	}
	labels := []string{"gpu"} // the recorded cluster's only label
	cases := []struct {
		body     string
		guard    string // substring of the GuardError; "" = passes the guard
		validate string // substring of Validate's error on the result; "" = valid
	}{
		{body: "unknownqueue.xml", guard: "root.nosuch is not in the live queue tree"},
		{body: "unknownlabel.xml", guard: `node label "fpga" does not exist`},
		{body: "clean.xml", guard: "root.nosuch, which is not in the live queue tree"},
		{body: "valid.xml"},
		{body: "revert.xml"},
		{body: "route.xml"},
		{body: "unroute.xml"},
		{body: "global.xml"},
		{body: "addqueue.xml"},
		{body: "sum110.xml", validate: "Illegal capacity sum of 1.1 for children of queue root"},
		{body: "gpusum110.xml", validate: "Illegal capacity sum of 1.2 for children of queue root for label=gpu"},
		{body: "capovermax.xml", validate: "Illegal queue capacity setting (abs-capacity=0.5) > (abs-maximum-capacity=0.4) for queue=[root.crypto],label=[]"},
		{body: "mixed.xml", validate: "Illegal capacity sum of 0.9"},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			m := realBody(t, tc.body)
			err := CheckMutation(live, m, labels)
			var ge *GuardError
			if tc.guard != "" {
				if !errors.As(err, &ge) || !strings.Contains(err.Error(), tc.guard) {
					t.Fatalf("CheckMutation = %v, want a GuardError containing %q", err, tc.guard)
				}
				return
			}
			if err != nil {
				t.Fatalf("CheckMutation = %v, want nil", err)
			}
			next, err := live.Apply(m)
			if err != nil {
				t.Fatal(err)
			}
			err = Validate(next)
			switch {
			case tc.validate == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tc.validate != "" && (err == nil || !strings.Contains(err.Error(), tc.validate)):
				t.Errorf("Validate = %v, want %q", err, tc.validate)
			}
		})
	}
	// Labels unknown (nil): the label check is skipped, the tree check is not.
	if err := CheckMutation(live, realBody(t, "unknownlabel.xml"), nil); err != nil {
		t.Errorf("labels unknown: %v", err)
	}
	if err := CheckMutation(live, realBody(t, "unknownqueue.xml"), nil); err == nil {
		t.Error("labels unknown: unknown queue passed")
	}
	// A param that reaches into a child that does not exist.
	bad := Mutation{UpdateQueue: []QueueUpdate{{Queue: "root", Params: map[string]string{"nosuch.capacity": "10"}}}}
	if err := CheckMutation(live, bad, labels); err == nil {
		t.Error("update-queue root nosuch.capacity passed")
	}
	// A child's property through its parent is fine when the child exists.
	ok := Mutation{UpdateQueue: []QueueUpdate{{Queue: "root", Params: map[string]string{"crypto.user-limit-factor": "3", "accessible-node-labels.gpu.capacity": "100"}}}}
	if err := CheckMutation(live, ok, labels); err != nil {
		t.Errorf("existing child via parent: %v", err)
	}
}

// Every recorded rejection names the refusal the same way the local
// validator does, and the identity mutation the probe sends is valid and
// changes nothing.
func TestIdentityMutationChangesNothing(t *testing.T) {
	live := realLive(t)
	m := IdentityMutation(live)
	next, err := live.Apply(m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(next, live) {
		t.Fatalf("identity mutation changed the configuration: %+v", Diff(live, next))
	}
	if err := CheckMutation(live, m, []string{"gpu"}); err != nil {
		t.Fatal(err)
	}
	if err := Validate(next); err != nil {
		t.Fatal(err)
	}
}

// An empty value unsets a queue property but leaves a global key present as
// "" (the recorded clean.xml request; README of the recordings).
func TestEmptyValueQueueVersusGlobal(t *testing.T) {
	live := realLive(t)
	next, err := live.Apply(Mutation{
		UpdateQueue:   []QueueUpdate{{Queue: "root.crypto", Params: map[string]string{"default-node-label-expression": ""}}},
		GlobalUpdates: map[string]string{Prefix + "rack-locality-full-reset": ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := next[Key("root.crypto", "default-node-label-expression")]; ok {
		t.Error("queue property with an empty value still present")
	}
	if v, ok := next[Prefix+"rack-locality-full-reset"]; !ok || v != "" {
		t.Errorf("global key with an empty value: present=%v value=%q, want present as \"\"", ok, v)
	}
}

func TestNamesLabels(t *testing.T) {
	for body, want := range map[string]bool{
		"unknownlabel.xml": true, "route.xml": true, "valid.xml": true, "gpusum110.xml": true,
		"sum110.xml": false, "unroute.xml": false, "global.xml": false, "removerunning.xml": false,
	} {
		if got := realBody(t, body).NamesLabels(); got != want {
			t.Errorf("%s: NamesLabels = %v, want %v", body, got, want)
		}
	}
	g := Mutation{GlobalUpdates: map[string]string{Prefix + "root.crypto.accessible-node-labels.gpu.capacity": "10"}}
	if !g.NamesLabels() {
		t.Error("global label capacity key not seen")
	}
}

// Rolling back the recorded valid.xml: the undo Diff computes is the
// recorded revert.xml (which the real RM accepted, put_revert), and applying
// it as Hadoop does restores the previous configuration exactly.
func TestRollbackOfRecordedValidIsRecordedRevert(t *testing.T) {
	live := realLive(t)
	applied := realConf(t, "validate_valid.body")
	undo := Diff(applied, live)
	revert := realBody(t, "revert.xml")
	if !reflect.DeepEqual(undo, revert) {
		t.Errorf("undo of valid.xml\n got %+v\nwant the recorded revert.xml %+v", undo, revert)
	}
	back, err := applied.ApplyAsHadoop(undo)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, live) {
		t.Errorf("after rollback the configuration differs: %+v", Diff(live, back))
	}
	if b, err := os.ReadFile(filepath.Join(realDir, "put_revert.body")); err != nil || strings.TrimSpace(string(b)) != "Configuration change successfully applied." {
		t.Errorf("recorded put_revert: %q %v", b, err)
	}
}
