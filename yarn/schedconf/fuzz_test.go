package schedconf

import (
	"reflect"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/internal/fuzzseed"
)

// The decoders of what an RM (or an admin's file) sends: GET scheduler-conf
// bodies and sched-conf mutations, XML or JSON. Seeds are the real Hadoop
// 3.3.6 recordings (testdata/real-3.3.6 here and in yarn/); crashers found by `make fuzz` stay
// in testdata/fuzz as regression seeds.

// FuzzParseConfInfo: never panics; an error names the format; what decodes
// survives our own encode → decode round trip and the tree/validate steps
// the applier runs on it return (error or not) without panicking.
func FuzzParseConfInfo(f *testing.F) {
	for _, b := range fuzzseed.Files(f, "../testdata/real-3.3.6/*/*scheduler-conf*.body") {
		f.Add(b, "application/json")
		f.Add(b, "")
	}
	f.Add([]byte(`<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property></configuration>`), "application/xml")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		c, err := ParseConfInfo(body, contentType)
		if err != nil {
			if !strings.Contains(err.Error(), "scheduler-conf") {
				t.Fatalf("error does not say what failed to decode: %v", err)
			}
			return
		}
		enc, err := c.MarshalJSONConfInfo()
		if err != nil {
			t.Fatalf("re-encode decoded conf: %v", err)
		}
		back, err := ParseConfInfo(enc, "application/json")
		if err != nil {
			t.Fatalf("our own encoding does not decode: %v\n%s", err, enc)
		}
		if len(c) > 0 && !reflect.DeepEqual(c, back) {
			t.Fatalf("round trip changed the conf:\n%v\n%v", c, back)
		}
		if tree, err := ParseTree(c); err == nil {
			_ = tree.Leaves()
			_ = ValidateWithLabels(c, []string{"gpu"})
		}
	})
}

// FuzzParseMutation: never panics; what decodes re-encodes as XML (the form
// we PUT) and applies to a small conf without panicking.
func FuzzParseMutation(f *testing.F) {
	for _, b := range fuzzseed.Files(f, "testdata/real-3.3.6/bodies/*.xml") {
		f.Add(b, "application/xml")
	}
	f.Add([]byte(`{"sched-conf":{"update-queue":{"queue-name":"root.a","params":{"entry":{"key":"capacity","value":"50"}}},"global-updates":[{"entry":{"key":"k","value":"v"}}]}}`), "application/json")
	f.Add([]byte(`{"remove-queue":["root.b"]}`), "")
	base := Conf{
		Key("root", "queues"):     "a,b",
		Key("root.a", "capacity"): "50",
		Key("root.b", "capacity"): "50",
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		m, err := ParseMutation(body, contentType)
		if err != nil {
			if !strings.Contains(err.Error(), "sched-conf") {
				t.Fatalf("error does not say what failed to decode: %v", err)
			}
			return
		}
		if _, err := m.EncodeXML(); err != nil {
			t.Logf("decoded mutation does not encode as XML: %v", err)
		}
		if after, err := base.Apply(m); err == nil {
			_ = ValidateWithLabels(after, nil)
		}
	})
}

// FuzzParseCapacity: the capacity grammar (percent, [memory=..,vcores=..],
// weights "2w") never panics and rejects what it cannot read by name.
func FuzzParseCapacity(f *testing.F) {
	for _, s := range []string{"50", "12.5", "[memory=1024,vcores=2]", "[memory=1024,vcores=2,yarn.io/gpu=1]", "2w", "-1", "", "1e309", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if _, err := ParseCapacity(raw); err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
	})
}
