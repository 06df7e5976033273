package yarn

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Jersey's list forms, each decoded by the one rule.
func TestJerseyList(t *testing.T) {
	type item struct {
		ID string `json:"id"`
	}
	type body struct {
		L jerseyList[item] `json:"l"`
	}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`{"l":[{"id":"a"},{"id":"b"}]}`, []string{"a", "b"}},
		{`{"l":[{"id":"a"}]}`, []string{"a"}},
		{`{"l":{"id":"a"}}`, []string{"a"}}, // one element as an object
		{`{"l":{}}`, nil},                   // none
		{`{"l":{ }}`, nil},
		{`{"l":null}`, nil},
		{`{"l":[]}`, nil},
		{`{}`, nil}, // missing key (a finished app's containers)
	} {
		var b body
		if err := json.Unmarshal([]byte(tc.in), &b); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		var got []string
		for _, it := range b.L {
			got = append(got, it.ID)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.in, got, tc.want)
		}
	}
	// A list of strings with one element may be a bare string
	// (label-mappings: "nodes":"gpunode:45451").
	var s struct {
		L jerseyList[string] `json:"l"`
	}
	if err := json.Unmarshal([]byte(`{"l":"gpunode:45451"}`), &s); err != nil || !reflect.DeepEqual([]string(s.L), []string{"gpunode:45451"}) {
		t.Errorf("bare string: %v %v", s.L, err)
	}
	// The wrong type still fails, naming the field.
	var bad struct {
		Outer struct {
			L jerseyList[item] `json:"inner"`
		} `json:"outer"`
	}
	err := json.Unmarshal([]byte(`{"outer":{"inner":"x"}}`), &bad)
	if err == nil || !strings.Contains(err.Error(), "inner") {
		t.Errorf("wrong type: %v", err)
	}
}

func TestJerseyNumbers(t *testing.T) {
	var v struct {
		I []jerseyInt   `json:"i"`
		F []jerseyFloat `json:"f"`
		B []jerseyBool  `json:"b"`
	}
	in := `{"i":[512,"512","",null,"-3",512.0],"f":[60.000004,"60.5","",null],"b":[true,"false","true",false]}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v.I, []jerseyInt{512, 512, 0, 0, -3, 512}) || !reflect.DeepEqual(v.F, []jerseyFloat{60.000004, 60.5, 0, 0}) ||
		!reflect.DeepEqual(v.B, []jerseyBool{true, false, true, false}) {
		t.Errorf("%+v", v)
	}
	for _, bad := range []string{`{"n":"lots"}`, `{"n":"v7"}`, `{"n":{}}`} {
		var n struct {
			N jerseyInt `json:"n"`
		}
		if err := json.Unmarshal([]byte(bad), &n); err == nil || !strings.Contains(err.Error(), "n") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// The one rule is used everywhere: no typed view of any RM, AM or
// JobHistory response holds a plain slice or a plain number where Jersey
// may send another form.
func TestEveryViewListIsJerseyList(t *testing.T) {
	views := []any{appsJSON{}, appJSON{}, appAttemptsJSON{}, containersJSON{}, containerNodesJSON{}, nodesJSON{}, nodeLabelsJSON{}, schedulerJSON{},
		jobsJSON{}, tasksJSON{}, taskAttemptsJSON{}, confJSON{}, attemptCountersJSON{}, resourceJSON{}, resourceInformationsJSON{}}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		switch typ.Kind() {
		case reflect.Pointer:
			walk(typ.Elem(), path)
			return
		case reflect.Slice:
			if !strings.HasPrefix(typ.Name(), "jerseyList[") {
				t.Errorf("%s is %s: lists must be jerseyList", path, typ)
			}
			walk(typ.Elem(), path+"[]")
			return
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64, reflect.Float32, reflect.Bool:
			if typ.PkgPath() == "" {
				t.Errorf("%s is %s: numbers and booleans must be jerseyInt/jerseyFloat/jerseyBool", path, typ)
			}
			return
		case reflect.Struct:
		default:
			return
		}
		if seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			walk(f.Type, path+"."+f.Name)
		}
	}
	for _, v := range views {
		walk(reflect.TypeOf(v), reflect.TypeOf(v).Name())
	}
}
