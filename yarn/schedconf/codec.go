package schedconf

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
)

// XML shapes of SchedConfUpdateInfo and ConfInfo (hadoop-yarn-common
// webapp/dao/SchedConfUpdateInfo.java, QueueConfigInfo.java, ConfInfo.java;
// CapacityScheduler.md "Changing queue configuration via API"). The params
// map is a JAXB HashMap: <params><entry><key>..</key><value>..</value></entry></params>.
type xmlEntry struct {
	Key   string `xml:"key" json:"key"`
	Value string `xml:"value" json:"value"`
}

type xmlQueue struct {
	Name   string     `xml:"queue-name"`
	Params []xmlEntry `xml:"params>entry"`
}

type xmlSchedConf struct {
	XMLName xml.Name   `xml:"sched-conf"`
	Add     []xmlQueue `xml:"add-queue"`
	Update  []xmlQueue `xml:"update-queue"`
	Remove  []string   `xml:"remove-queue"`
	Global  []xmlEntry `xml:"global-updates>entry"`
}

func entries(m map[string]string) []xmlEntry {
	out := make([]xmlEntry, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, xmlEntry{k, m[k]})
	}
	return out
}

func queues(qs []QueueUpdate) []xmlQueue {
	out := make([]xmlQueue, 0, len(qs))
	for _, q := range qs {
		out = append(out, xmlQueue{Name: q.Queue, Params: entries(q.Params)})
	}
	return out
}

// EncodeXML encodes the mutation as the documented sched-conf XML body of
// PUT /ws/v1/cluster/scheduler-conf.
func (m Mutation) EncodeXML() ([]byte, error) {
	doc := xmlSchedConf{Add: queues(m.AddQueue), Update: queues(m.UpdateQueue), Remove: m.RemoveQueue, Global: entries(m.GlobalUpdates)}
	b, err := xml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode sched-conf: %w", err)
	}
	return append([]byte(xml.Header), b...), nil
}

// jsonQueue and jsonSchedConf are the JSON form Jersey produces for the same
// JAXB objects (not confirmed against a live RM; XML is the documented form).
type jsonQueue struct {
	Name   string `json:"queue-name"`
	Params struct {
		Entry []xmlEntry `json:"entry"`
	} `json:"params"`
}

type jsonSchedConf struct {
	Add    []jsonQueue `json:"add-queue,omitempty"`
	Update []jsonQueue `json:"update-queue,omitempty"`
	Remove []string    `json:"remove-queue,omitempty"`
	Global []struct {
		Entry []xmlEntry `json:"entry"`
	} `json:"global-updates,omitempty"`
}

// MarshalJSON encodes the mutation in the JSON form.
func (m Mutation) MarshalJSON() ([]byte, error) {
	var doc jsonSchedConf
	conv := func(qs []QueueUpdate) []jsonQueue {
		var out []jsonQueue
		for _, q := range qs {
			var jq jsonQueue
			jq.Name, jq.Params.Entry = q.Queue, entries(q.Params)
			out = append(out, jq)
		}
		return out
	}
	doc.Add, doc.Update, doc.Remove = conv(m.AddQueue), conv(m.UpdateQueue), m.RemoveQueue
	if len(m.GlobalUpdates) > 0 {
		doc.Global = append(doc.Global, struct {
			Entry []xmlEntry `json:"entry"`
		}{entries(m.GlobalUpdates)})
	}
	return json.Marshal(doc)
}

// ParseMutation decodes a sched-conf body, XML or JSON by content type (or
// by its first byte when the type is missing). JSON may carry a "sched-conf"
// root or not, and a single object where a list is expected (Jersey).
func ParseMutation(body []byte, contentType string) (Mutation, error) {
	var m Mutation
	if isJSON(body, contentType) {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil {
			return m, fmt.Errorf("sched-conf JSON: %w", err)
		}
		if inner, ok := raw["sched-conf"]; ok {
			raw = nil
			if err := json.Unmarshal(inner, &raw); err != nil {
				return m, fmt.Errorf("sched-conf JSON root: %w", err)
			}
		}
		var err error
		if m.AddQueue, err = jsonQueues(raw["add-queue"]); err != nil {
			return m, fmt.Errorf("sched-conf add-queue: %w", err)
		}
		if m.UpdateQueue, err = jsonQueues(raw["update-queue"]); err != nil {
			return m, fmt.Errorf("sched-conf update-queue: %w", err)
		}
		if r := raw["remove-queue"]; len(r) > 0 {
			if err := oneOrMany(r, &m.RemoveQueue); err != nil {
				return m, fmt.Errorf("sched-conf remove-queue: %w", err)
			}
		}
		if g := raw["global-updates"]; len(g) > 0 {
			var gs []struct {
				Entry json.RawMessage `json:"entry"`
			}
			if err := oneOrMany(g, &gs); err != nil {
				return m, fmt.Errorf("sched-conf global-updates: %w", err)
			}
			for _, e := range gs {
				var es []xmlEntry
				if err := oneOrMany(e.Entry, &es); err != nil {
					return m, fmt.Errorf("sched-conf global-updates entry: %w", err)
				}
				for _, kv := range es {
					if m.GlobalUpdates == nil {
						m.GlobalUpdates = map[string]string{}
					}
					m.GlobalUpdates[kv.Key] = kv.Value
				}
			}
		}
		return m, nil
	}
	var doc xmlSchedConf
	if err := xml.Unmarshal(body, &doc); err != nil {
		return m, fmt.Errorf("sched-conf XML: %w", err)
	}
	if doc.XMLName.Local != "sched-conf" {
		return m, fmt.Errorf("sched-conf XML: root element is <%s>, want <sched-conf>", doc.XMLName.Local)
	}
	toUpdates := func(qs []xmlQueue) []QueueUpdate {
		var out []QueueUpdate
		for _, q := range qs {
			u := QueueUpdate{Queue: strings.TrimSpace(q.Name), Params: map[string]string{}}
			for _, e := range q.Params {
				u.Params[strings.TrimSpace(e.Key)] = e.Value
			}
			out = append(out, u)
		}
		return out
	}
	m.AddQueue, m.UpdateQueue = toUpdates(doc.Add), toUpdates(doc.Update)
	for _, r := range doc.Remove {
		m.RemoveQueue = append(m.RemoveQueue, strings.TrimSpace(r))
	}
	for _, e := range doc.Global {
		if m.GlobalUpdates == nil {
			m.GlobalUpdates = map[string]string{}
		}
		m.GlobalUpdates[strings.TrimSpace(e.Key)] = e.Value
	}
	return m, nil
}

func jsonQueues(raw json.RawMessage) ([]QueueUpdate, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var qs []struct {
		Name   string `json:"queue-name"`
		Params struct {
			Entry json.RawMessage `json:"entry"`
		} `json:"params"`
	}
	if err := oneOrMany(raw, &qs); err != nil {
		return nil, err
	}
	var out []QueueUpdate
	for _, q := range qs {
		if q.Name == "" {
			return nil, fmt.Errorf("an entry has no queue-name")
		}
		var es []xmlEntry
		if len(q.Params.Entry) > 0 {
			if err := oneOrMany(q.Params.Entry, &es); err != nil {
				return nil, fmt.Errorf("queue %s params: %w", q.Name, err)
			}
		}
		u := QueueUpdate{Queue: q.Name, Params: map[string]string{}}
		for _, e := range es {
			u.Params[e.Key] = e.Value
		}
		out = append(out, u)
	}
	return out, nil
}

// oneOrMany decodes a JSON list, or a single object as a one-element list.
func oneOrMany[T any](raw json.RawMessage, dst *[]T) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '[' {
		return json.Unmarshal(raw, dst)
	}
	var one T
	if err := json.Unmarshal(raw, &one); err != nil {
		return err
	}
	*dst = append(*dst, one)
	return nil
}

func isJSON(body []byte, contentType string) bool {
	ct := strings.ToLower(contentType)
	if strings.Contains(ct, "json") {
		return true
	}
	if strings.Contains(ct, "xml") {
		return false
	}
	b := bytes.TrimSpace(body)
	return len(b) > 0 && b[0] == '{'
}

// ConfInfo XML: <configuration><property><name>..</name><value>..</value></property>...</configuration>
// (the root of dao/ConfInfo.java is "configuration").
type xmlConfInfo struct {
	XMLName  xml.Name `xml:"configuration"`
	Property []struct {
		Name  string `xml:"name" json:"name"`
		Value string `xml:"value" json:"value"`
	} `xml:"property"`
}

// MarshalXMLConfInfo encodes the configuration as GET /scheduler-conf does.
func (c Conf) MarshalXMLConfInfo() ([]byte, error) {
	var doc xmlConfInfo
	for _, k := range sortedKeys(c) {
		doc.Property = append(doc.Property, struct {
			Name  string `xml:"name" json:"name"`
			Value string `xml:"value" json:"value"`
		}{k, c[k]})
	}
	b, err := xml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}

// MarshalJSONConfInfo encodes the configuration as {"property":[{"name","value"}]}.
func (c Conf) MarshalJSONConfInfo() ([]byte, error) {
	type prop struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	props := make([]prop, 0, len(c))
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		props = append(props, prop{k, c[k]})
	}
	return json.Marshal(struct {
		Property []prop `json:"property"`
	}{props})
}

// ParseConfInfo decodes a ConfInfo body (XML or JSON; JSON with or without a
// "configuration" root, a single property as a bare object).
func ParseConfInfo(body []byte, contentType string) (Conf, error) {
	out := Conf{}
	if isJSON(body, contentType) {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, fmt.Errorf("scheduler-conf JSON: %w", err)
		}
		if inner, ok := raw["configuration"]; ok {
			raw = nil
			if err := json.Unmarshal(inner, &raw); err != nil {
				return nil, fmt.Errorf("scheduler-conf JSON root: %w", err)
			}
		}
		p, ok := raw["property"]
		if !ok {
			return nil, fmt.Errorf("scheduler-conf JSON: no \"property\" list")
		}
		var props []xmlEntry
		var named []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		}
		if err := oneOrMany(p, &named); err != nil {
			return nil, fmt.Errorf("scheduler-conf JSON property: %w", err)
		}
		for _, n := range named {
			props = append(props, xmlEntry{n.Name, n.Value})
		}
		for _, e := range props {
			if e.Key == "" {
				return nil, fmt.Errorf("scheduler-conf JSON: a property has no name")
			}
			out[e.Key] = e.Value
		}
		return out, nil
	}
	var doc xmlConfInfo
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("scheduler-conf XML: %w", err)
	}
	for _, p := range doc.Property {
		out[strings.TrimSpace(p.Name)] = p.Value
	}
	return out, nil
}
