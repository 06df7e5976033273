package yarn

import (
	"encoding/json"
	"strings"
	"testing"
)

// The streamed list decoder keeps every Jersey encoding of a list.
func TestDecodeListAtJerseyEncodings(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
		wantErr    bool
	}{
		{"array", `{"apps":{"app":[{"id":"a1"},{"id":"a2"}]}}`, []string{"a1", "a2"}, false},
		{"one as an object", `{"apps":{"app":{"id":"a1","queue":"q"}}}`, []string{"a1"}, false},
		{"none as {}", `{"apps":{"app":{}}}`, nil, false},
		{"apps null", `{"apps":null}`, nil, false},
		{"key missing", `{"other":[1,2],"apps":{}}`, nil, false},
		{"keys around", `{"x":{"app":[{"id":"no"}]},"apps":{"y":1,"app":[{"id":"a1"}],"z":[]}}`, []string{"a1"}, false},
		{"quoted numbers", `{"apps":{"app":[{"id":"a1","allocatedMB":"512"}]}}`, []string{"a1"}, false},
		{"bad element", `{"apps":{"app":[{"id":7}]}}`, nil, true},
		{"truncated", `{"apps":{"app":[{"id":"a1"}`, nil, true},
		{"not an object", `[1]`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			err := decodeListAt(newStreamDecoder(strings.NewReader(c.body)), []string{"apps", "app"}, func(a *appJSON) error {
				got = append(got, a.ID)
				return nil
			})
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if !c.wantErr && strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
	// One label as a bare string (get-node-to-labels on 3.3.6).
	var labels []string
	if err := decodeJerseyList(newStreamDecoder(strings.NewReader(`"gpu"`)), func(s *string) error { labels = append(labels, *s); return nil }); err != nil || len(labels) != 1 || labels[0] != "gpu" {
		t.Fatalf("bare string: %v %v", labels, err)
	}
}

// The fast read of the GPU value agrees with the decoder, and declines
// anything but the flat form.
func TestGPUValueFast(t *testing.T) {
	cases := []struct {
		body   string
		want   int64
		fastOK bool
	}{
		{`{"resourceInformation":[{"attributes":{},"name":"memory-mb","value":2048},{"attributes":{},"maximumAllocation":8,"name":"yarn.io/gpu","resourceType":"COUNTABLE","units":"","value":4}]}`, 4, true},
		{`{"resourceInformation":[{"name": "yarn.io/gpu", "units":"", "value": 0 }]}`, 0, true},
		{`{"resourceInformation":[{"name":"yarn.io/gpu","value":"2"}]}`, 2, true},
		{`{"resourceInformation":{"value":3,"name":"yarn.io/gpu"}}`, 3, false},                        // value before name
		{`{"resourceInformation":[{"name":"yarn.io/gpu","attributes":{"a":1},"value":5}]}`, 5, false}, // nested object after name
		{`{"resourceInformation":[{"name":"yarn.io/gpu","value":6,"attributes":{}}]}`, 6, true},       // the mini RM's order
		{`{"resourceInformation":[{"name":"memory-mb","value":1}]}`, 0, false},
	}
	for _, c := range cases {
		v, ok := gpuValueFast([]byte(c.body))
		if ok != c.fastOK || ok && v != c.want {
			t.Errorf("%s: fast %d %v, want %d %v", c.body, v, ok, c.want, c.fastOK)
		}
		var g gpuCount
		if err := json.Unmarshal([]byte(c.body), &g); err != nil || int64(g) != c.want {
			t.Errorf("%s: decoded %d %v, want %d", c.body, g, err, c.want)
		}
	}
}
