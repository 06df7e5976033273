package rmweb

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Node labels: reads (get-node-labels, get-node-to-labels, label-mappings)
// and the three writes (add-node-labels, remove-node-labels,
// replace-node-to-labels) as a real 3.3.6 RM answers them. Every form here
// is held to testdata/real-3.3.6/labels by golden_writes_test.go; where no
// recording says, Hadoop's CommonNodeLabelsManager/RMNodeLabelsManager
// (read, not recorded) is the reference and the comment says so.
//
// Not modelled: host-wide labels (a node id without a port labels every
// NodeManager on the host in Hadoop; here it names no node and is ignored),
// labels on nodes the RM has not seen (Hadoop keeps them for when the node
// registers; here they are dropped), node-label store persistence.

// Node labels use Jersey's default JSON (HADOOP-API.md §0): the root is
// dropped, booleans come out as strings and a single element is an object
// (recorded: {"nodeLabelInfo":{"name":"gpu","exclusivity":"false"}}); no
// label at all is {} (recorded).
func (h *handler) getNodeLabels(w http.ResponseWriter, r *http.Request) {
	var infos []map[string]any
	for _, l := range h.s.Labels() {
		infos = append(infos, map[string]any{"name": l.Name, "exclusivity": strconv.FormatBool(l.Exclusive)})
	}
	body := map[string]any{}
	if v := jerseyList(infos); v != nil {
		body["nodeLabelInfo"] = v
	}
	writeJSON(w, body)
}

func (h *handler) labelInfos(names []string) []map[string]any {
	ex := map[string]bool{}
	for _, l := range h.s.Labels() {
		ex[l.Name] = l.Exclusive
	}
	var out []map[string]any
	for _, l := range names {
		out = append(out, map[string]any{"name": l, "exclusivity": strconv.FormatBool(ex[l])})
	}
	return out
}

// getNodeToLabels: with no node labelled the map is null (recorded:
// {"nodeToLabels":null}), not an empty object.
func (h *handler) getNodeToLabels(w http.ResponseWriter, r *http.Request) {
	var entries []map[string]any
	for _, n := range h.s.Nodes() {
		if len(n.Labels) == 0 {
			continue
		}
		entries = append(entries, map[string]any{"key": n.ID, "value": map[string]any{"nodeLabelInfo": jerseyList(h.labelInfos(n.Labels))}})
	}
	if len(entries) == 0 {
		writeJSON(w, map[string]any{"nodeToLabels": nil})
		return
	}
	writeJSON(w, map[string]any{"nodeToLabels": map[string]any{"entry": jerseyList(entries)}})
}

// labelMappings serves /ws/v1/cluster/label-mappings (labels to nodes;
// recorded: {"labelsToNodes":{"entry":{"key":{"name":"gpu",...},
// "value":{"nodes":"gpunode:45451"}}}}, and {"labelsToNodes":null} when no
// node carries a label).
func (h *handler) labelMappings(w http.ResponseWriter, r *http.Request) {
	want := map[string]bool{}
	for _, l := range r.URL.Query()["labels"] {
		want[l] = true
	}
	byLabel := map[string][]string{}
	for _, n := range h.s.Nodes() {
		for _, l := range n.Labels {
			byLabel[l] = append(byLabel[l], n.ID)
		}
	}
	var entries []map[string]any
	for _, l := range h.s.Labels() {
		if len(byLabel[l.Name]) == 0 || (len(want) > 0 && !want[l.Name]) {
			continue
		}
		entries = append(entries, map[string]any{"key": h.labelInfos([]string{l.Name})[0],
			"value": map[string]any{"nodes": jerseyList(byLabel[l.Name])}})
	}
	if len(entries) == 0 {
		writeJSON(w, map[string]any{"labelsToNodes": nil})
		return
	}
	writeJSON(w, map[string]any{"labelsToNodes": map[string]any{"entry": jerseyList(entries)}})
}

// ioBadRequest is how RMWebServices answers an IOException from the label
// manager: BadRequestException wrapping it (recorded).
func ioBadRequest(w http.ResponseWriter, msg string) {
	remoteError(w, http.StatusBadRequest, "BadRequestException", "org.apache.hadoop.yarn.webapp.BadRequestException", "java.io.IOException: "+msg)
}

// emptyOK is a label write's success: 200, no body, labelled JSON
// (recorded: Content-Type application/json, Content-Length 0).
func emptyOK(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(http.StatusOK)
}

// oneOrMany reads a Jersey JSON list: an array, or one element as itself.
func oneOrMany[T any](raw json.RawMessage, dst *[]T) error {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "" || s == "null":
		return nil
	case strings.HasPrefix(s, "["):
		return json.Unmarshal(raw, dst)
	}
	var one T
	if err := json.Unmarshal(raw, &one); err != nil {
		return err
	}
	*dst = append(*dst, one)
	return nil
}

// addNodeLabels: a label that exists with the same exclusivity is a no-op
// (200); with another exclusivity, 400 "Exclusivity cannot be modified for
// an existing label with : <name:exclusivity=new>" (both recorded). Keys
// other than name and exclusivity are dropped, as Jersey does; a missing
// exclusivity is true (NodeLabel's default).
func (h *handler) addNodeLabels(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, true) {
		return
	}
	var body struct {
		NodeLabelInfo json.RawMessage `json:"nodeLabelInfo"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		badRequest(w, "bad node labels body: "+err.Error())
		return
	}
	var infos []struct {
		Name        string `json:"name"`
		Exclusivity any    `json:"exclusivity"`
	}
	if err := oneOrMany(body.NodeLabelInfo, &infos); err != nil {
		badRequest(w, "bad nodeLabelInfo: "+err.Error())
		return
	}
	have := map[string]bool{}
	for _, l := range h.s.Labels() {
		have[l.Name] = l.Exclusive
	}
	var labels []Label
	for _, i := range infos {
		ex := fmt.Sprint(i.Exclusivity) != "false"
		if old, ok := have[i.Name]; ok {
			if old != ex {
				ioBadRequest(w, fmt.Sprintf("Exclusivity cannot be modified for an existing label with : <%s:exclusivity=%v>", i.Name, ex))
				return
			}
			continue
		}
		labels = append(labels, Label{Name: i.Name, Exclusive: ex})
	}
	if len(labels) > 0 {
		if err := h.s.AddLabels(labels); err != nil {
			ioBadRequest(w, err.Error())
			return
		}
	}
	emptyOK(w)
}

// removeNodeLabels: refused while a queue's accessible-node-labels names
// the label (recorded: "Cannot remove label=gpu, because queue=root.sort is
// using this label. ..."), then refused for a label that does not exist
// (Hadoop's message, not recorded). A label still on nodes is taken off
// them (CommonNodeLabelsManager.internalRemoveFromClusterNodeLabels; not
// recorded).
func (h *handler) removeNodeLabels(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, true) {
		return
	}
	names := r.URL.Query()["labels"]
	conf, _ := h.s.SchedulerConf()
	users := labelUsers(conf)
	for _, l := range names {
		if q := users[l]; q != "" {
			ioBadRequest(w, "Cannot remove label="+l+", because queue="+q+" is using this label. Please remove label on queue before remove the label")
			return
		}
	}
	have := map[string]bool{}
	for _, l := range h.s.Labels() {
		have[l.Name] = true
	}
	for _, l := range names {
		if strings.TrimSpace(l) == "" {
			ioBadRequest(w, "Label to be removed is null or empty")
			return
		}
		if !have[l] {
			ioBadRequest(w, "Node label="+l+" to be removed doesn't existed in cluster node labels collection.")
			return
		}
	}
	strip := map[string][]string{}
	for _, n := range h.s.Nodes() {
		for _, l := range n.Labels {
			if slicesContains(names, l) {
				strip[n.ID] = nil
			}
		}
	}
	if len(strip) > 0 {
		if err := h.s.ReplaceNodeLabels(strip); err != nil {
			ioBadRequest(w, err.Error())
			return
		}
	}
	if err := h.s.RemoveLabels(names); err != nil {
		ioBadRequest(w, err.Error())
		return
	}
	emptyOK(w)
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// labelUsers maps each label to the queue Hadoop names when it refuses to
// remove it: the first queue, in the order RMNodeLabelsManager's
// queueCollections (a Java hash map keyed by queue path) iterates, whose
// accessible labels name it. root's "*" names no label. The order is Java's
// so the message names the queue the real RM names (recorded: root.sort
// where root.crypto and root.sort both use gpu).
func labelUsers(conf schedconf.Conf) map[string]string {
	tree, err := schedconf.ParseTree(conf)
	if err != nil {
		return nil
	}
	paths := make([]string, 0, len(tree.ByPath))
	for p := range tree.ByPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	table := 16 // ConcurrentHashMap's default, doubled past 0.75 load
	for len(paths) > table*3/4 {
		table *= 2
	}
	sort.SliceStable(paths, func(i, j int) bool { return javaBucket(paths[i], table) < javaBucket(paths[j], table) })
	users := map[string]string{}
	for _, p := range paths {
		for _, l := range tree.ByPath[p].AccessibleLabels {
			if l != "*" && users[l] == "" {
				users[l] = p
			}
		}
	}
	return users
}

// javaBucket is the bucket of a String key in a Java hash table of n
// buckets: String.hashCode, spread as ConcurrentHashMap.spread does.
func javaBucket(s string, n int) int {
	var h int32
	for _, c := range s {
		h = 31*h + int32(c)
	}
	u := uint32(h)
	return int((u^(u>>16))&0x7fffffff) & (n - 1)
}

// replaceNodeToLabels reads NodeToLabelsEntryList as Jersey does: each
// entry's labels come from the key "labels" only; any other key is dropped,
// so an entry without "labels" reads as an empty list and takes the node's
// label away (recorded: {"nodeId":..., "nodeLabels":[...]} answered 200,
// changed nothing on an unlabelled node and unlabelled a labelled one).
// Then CommonNodeLabelsManager.checkReplaceLabelsOnNode: more than one
// label, or one the cluster does not know, is a 400 (messages from Hadoop's
// source, not recorded). Options.ReplaceLabelsReadEmpty makes every entry
// read as empty, the way the real RM treats a body whose labels it cannot
// read.
func (h *handler) replaceNodeToLabels(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, true) {
		return
	}
	var body struct {
		NodeToLabels json.RawMessage `json:"nodeToLabels"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&body); err != nil {
		badRequest(w, "bad nodeToLabels body: "+err.Error())
		return
	}
	var entries []struct {
		NodeID string          `json:"nodeId"`
		Labels json.RawMessage `json:"labels"`
	}
	if err := oneOrMany(body.NodeToLabels, &entries); err != nil {
		badRequest(w, "bad nodeToLabels: "+err.Error())
		return
	}
	known := map[string]bool{}
	for _, l := range h.s.Labels() {
		known[l.Name] = true
	}
	nodes := map[string]bool{}
	for _, n := range h.s.Nodes() {
		nodes[n.ID] = true
	}
	m := map[string][]string{}
	for _, e := range entries {
		var labels []string
		if !h.o.ReplaceLabelsReadEmpty {
			if err := oneOrMany(e.Labels, &labels); err != nil {
				badRequest(w, "bad labels of "+e.NodeID+": "+err.Error())
				return
			}
		}
		host, _, _ := strings.Cut(e.NodeID, ":")
		if len(labels) > 1 {
			ioBadRequest(w, fmt.Sprintf("%d labels specified on host=%s, please note that we do not support specifying multiple labels on a single host for now.", len(labels), host))
			return
		}
		for _, l := range labels {
			if !known[l] {
				ioBadRequest(w, "Not all labels being replaced contained by known label collections, please check, new labels=["+strings.Join(labels, ",")+"]")
				return
			}
		}
		if nodes[e.NodeID] {
			m[e.NodeID] = labels
		}
	}
	if len(m) > 0 {
		if err := h.s.ReplaceNodeLabels(m); err != nil {
			ioBadRequest(w, err.Error())
			return
		}
	}
	emptyOK(w)
}
