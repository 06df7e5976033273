package yarn

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The real 3.3.6 file-store RM (testdata/real-3.3.6/file-store): the
// configuration rebuilt from /scheduler equals capacity-scheduler.xml on
// every capacity the tree has, before and after a refreshQueues to 60/40
// (which reads 60.000004).
func TestConfFromSchedulerReal336FileStore(t *testing.T) {
	dir := filepath.Join("testdata", "real-3.3.6-file-store")
	for _, tc := range []struct {
		name, body, xml string
	}{
		{"orig", "get-scheduler.body", "capacity-scheduler.orig.xml"},
		{"after refresh to 60/40", "scheduler-after-valid.body", "capacity-scheduler.valid-60-40.xml"},
		{"refused refresh keeps the old queues", "scheduler-after-invalid.body", "capacity-scheduler.valid-60-40.xml"},
		{"restored", "scheduler-after-restore.body", "capacity-scheduler.orig.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(dir, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ConfFromSchedulerBody(body)
			if err != nil {
				t.Fatal(err)
			}
			file, err := loadSite(filepath.Join(dir, tc.xml))
			if err != nil {
				t.Fatal(err)
			}
			want, err := schedconf.ParseTree(schedconf.Conf(file))
			if err != nil {
				t.Fatal(err)
			}
			tree, err := schedconf.ParseTree(got)
			if err != nil {
				t.Fatalf("rebuilt conf does not parse: %v\n%v", err, got)
			}
			for path, wq := range want.ByPath {
				gq, ok := tree.ByPath[path]
				if !ok {
					t.Fatalf("queue %s missing from the rebuilt tree", path)
				}
				for part, wc := range wq.Capacity {
					if gc := gq.Capacity[part]; gc.Raw != wc.Raw {
						t.Errorf("%s partition %q capacity = %q, want %q", path, part, gc.Raw, wc.Raw)
					}
				}
				for part, wc := range wq.MaxCapacity {
					if gc := gq.MaxCapacity[part]; gc.Percent != wc.Percent {
						t.Errorf("%s partition %q maximum-capacity = %q, want %q", path, part, gc.Raw, wc.Raw)
					}
				}
				if path != "root" && !sameStrings(gq.AccessibleLabels, wq.AccessibleLabels) {
					t.Errorf("%s accessible labels = %v, want %v", path, gq.AccessibleLabels, wq.AccessibleLabels)
				}
			}
			if v := got[schedconf.Prefix+"maximum-am-resource-percent"]; v != "0.5" {
				t.Errorf("maximum-am-resource-percent = %q, want 0.5", v)
			}
			for k, v := range got {
				if len(k) > len("disable_preemption") && k[len(k)-len("disable_preemption"):] == "disable_preemption" {
					t.Errorf("%s=%s written although the monitor is off (every leaf says preemptionDisabled)", k, v)
				}
			}
		})
	}
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Weights (3.4's weight per partition) and absolute resources
// (configuredMinResource) are recognised; percentages are rounded.
func TestConfFromSchedulerModes(t *testing.T) {
	body := `{"scheduler":{"schedulerInfo":{"type":"capacityScheduler","queueName":"root","capacities":{"queueCapacitiesByPartition":[
 {"partitionName":"","capacity":100.0,"maxCapacity":100.0},{"partitionName":"gpu","capacity":100.0,"maxCapacity":100.0}]},
 "queues":{"queue":[
  {"queueName":"w","queuePath":"root.w","mode":"weight","nodeLabels":["gpu"],"capacities":{"queueCapacitiesByPartition":[
    {"partitionName":"","capacity":0.0,"maxCapacity":100.0,"weight":2.0},{"partitionName":"gpu","capacity":0.0,"maxCapacity":100.0,"weight":1.5}]}},
  {"queueName":"p","queuePath":"root.p","queues":{"queue":[
    {"queueName":"a","defaultNodeLabelExpression":"gpu","userLimitFactor":10.0,"preemptionDisabled":true,"configuredMaxAMResourceLimit":0.2,"capacities":{"queueCapacitiesByPartition":[
      {"partitionName":"","capacity":33.329998,"maxCapacity":60.000004,"weight":-1.0}]}},
    {"queueName":"b","preemptionDisabled":false,"configuredMaxAMResourceLimit":0.1,"capacities":{"queueCapacitiesByPartition":[
      {"partitionName":"","capacity":66.67,"maxCapacity":100.0,"weight":-1.0,
       "configuredMinResource":{"memory":0,"vCores":0},"configuredMaxResource":{"memory":0,"vCores":0}}]}}]},
   "capacities":{"queueCapacitiesByPartition":[{"partitionName":"","capacity":0.0,"maxCapacity":100.0,"weight":1.0}]}},
  {"queueName":"abs","isAbsoluteResource":true,"capacities":{"queueCapacitiesByPartition":[
    {"partitionName":"","capacity":10.0,"maxCapacity":100.0,"configuredMinResource":{"memory":10240,"vCores":12,"resourceInformations":{"resourceInformation":[{"name":"yarn.io/gpu","value":2}]}},
     "configuredMaxResource":{"memory":20480,"vCores":24}}]}}]}}}}`
	got, err := ConfFromSchedulerBody([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"root.queues": "w,p,abs",
		"root.accessible-node-labels.gpu.capacity":   "100",
		"root.w.capacity":                            "2w",
		"root.w.accessible-node-labels.gpu.capacity": "1.5w",
		"root.w.accessible-node-labels":              "gpu",
		"root.p.capacity":                            "1w",
		"root.p.queues":                              "a,b",
		"root.p.a.capacity":                          "33.33",
		"root.p.a.maximum-capacity":                  "60",
		"root.p.a.default-node-label-expression":     "gpu",
		"root.p.a.user-limit-factor":                 "10",
		"root.p.a.disable_preemption":                "true",
		"root.p.a.maximum-am-resource-percent":       "0.2",
		"root.p.b.capacity":                          "66.67",
		"root.p.b.maximum-am-resource-percent":       "0.1",
		"root.abs.capacity":                          "[memory=10240,vcores=12,yarn.io/gpu=2]",
		"root.abs.maximum-capacity":                  "[memory=20480,vcores=24]",
	} {
		if g := got[schedconf.Prefix+k]; g != want {
			t.Errorf("%s = %q, want %q", k, g, want)
		}
	}
	if v, ok := got[schedconf.Prefix+"root.p.b.disable_preemption"]; ok {
		t.Errorf("root.p.b.disable_preemption = %q, want unset", v)
	}
}
