package rmweb

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

const notMutable = "Configuration change only supported by MutableConfScheduler."

// notMutableGet and notMutableVersion are what a file-store RM answers to
// GET /scheduler-conf and /scheduler-conf/version (recorded on 3.3.6,
// ../shared/real-hadoop-3.3.6/file-store: 400, plain text labelled
// application/json;charset=utf-8, like the PUT's and validate's).
const (
	notMutableGet     = "This API only supports to retrieve scheduler configuration from a mutable-conf scheduler, underneath scheduler CapacityScheduler is not an instance of MutableConfScheduler"
	notMutableVersion = "Configuration Version only supported by MutableConfScheduler."
)

// notMutableValidate is RMWebServices.validateAndGetSchedulerConfiguration's.
const notMutableValidate = "Configuration change validation only supported by MutableConfScheduler."

// levelDBValidateError is what every POST /scheduler-conf/validate answers
// on an RM whose store is leveldb (recorded on 3.3.6; the validator builds a
// second scheduler that opens the same store and finds its lock held).
const levelDBValidateError = "CapacityScheduler configuration validation failed:org.apache.hadoop.service.ServiceStateException: " +
	"java.io.IOException: java.io.IOException: org.fusesource.leveldbjni.internal.NativeDB$DBException: IO error: " +
	"lock /var/lib/hadoop/yarn/system/confstore/yarn-conf-store/conf-version-store/LOCK: already held by process"

// confText answers the scheduler-conf PUT and validate failures: plain text,
// although the RM labels it application/json (recorded).
func confText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, msg)
}

// schedConf serves GET and PUT /ws/v1/cluster/scheduler-conf.
// GET is for admins only (RMWebServices: "Only admin user is allowed to
// read scheduler conf"); a PUT from a non-admin is refused by the
// configuration provider's queue ACL check, 400 plain text (recorded).
func (h *handler) schedConf(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodGet, http.MethodPut) || !h.authorizeWrite(w, r, r.Method == http.MethodGet) {
		return
	}
	if !h.o.MutableConfStore {
		msg := notMutable
		if r.Method == http.MethodGet {
			msg = notMutableGet
		}
		confText(w, http.StatusBadRequest, msg)
		return
	}
	if r.Method == http.MethodPut && !h.isAdmin(r) {
		confText(w, http.StatusBadRequest, "User is not admin of all modified queues.")
		return
	}
	if r.Method == http.MethodGet {
		conf, _ := h.s.SchedulerConf()
		b, err := conf.MarshalJSONConfInfo()
		if err != nil {
			plain(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	m, ok := h.readMutation(w, r)
	if !ok {
		return
	}
	if _, err := h.mutate(m, false); err != nil {
		confText(w, http.StatusBadRequest, "Failed to re-init queues : "+err.Error())
		return
	}
	confText(w, http.StatusOK, "Configuration change successfully applied.")
}

// readMutation decodes a SchedConfUpdateInfo; a body Jersey cannot
// unmarshal is a 400 RemoteException (recorded for malformed XML).
func (h *handler) readMutation(w http.ResponseWriter, r *http.Request) (schedconf.Mutation, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		plain(w, http.StatusBadRequest, "read body: "+err.Error())
		return schedconf.Mutation{}, false
	}
	m, err := schedconf.ParseMutation(body, r.Header.Get("Content-Type"))
	if err != nil {
		remoteError(w, http.StatusBadRequest, "WebApplicationException", "javax.ws.rs.WebApplicationException",
			"javax.xml.bind.UnmarshalException\n - with linked exception:\n[org.xml.sax.SAXParseException; "+err.Error()+"]")
		return m, false
	}
	return m, true
}

// schedConfValidate does not check the admin ACL (recorded: a non-admin's
// validate answered 200 with the resulting configuration).
func (h *handler) schedConfValidate(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) || !h.authorizeWrite(w, r, false) {
		return
	}
	if !h.o.MutableConfStore {
		confText(w, http.StatusBadRequest, notMutableValidate)
		return
	}
	m, ok := h.readMutation(w, r)
	if !ok {
		return
	}
	if h.o.ValidateBrokenAsLevelDB {
		confText(w, http.StatusBadRequest, levelDBValidateError)
		return
	}
	conf, err := h.mutate(m, true)
	if err != nil {
		confText(w, http.StatusBadRequest, "CapacityScheduler configuration validation failed:java.io.IOException: Failed to re-init queues : "+err.Error())
		return
	}
	// Success is the whole resulting configuration (recorded).
	b, _ := conf.MarshalJSONConfInfo()
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.Write(b)
}

// mutate applies (or only validates) a mutation the way the selected
// release's RM does, returning the scheduler's refusal as the text that
// follows "Failed to re-init queues : ".
func (h *handler) mutate(m schedconf.Mutation, validateOnly bool) (schedconf.Conf, error) {
	conf, _ := h.s.SchedulerConf()
	m = unknownQueuesAsGlobal(conf, m)
	if h.o.is33() {
		if v, ok := weightValue(m); ok {
			return nil, textError(`For input string: "` + v + `"`)
		}
		if err := h.reinit33(conf, m); err != nil {
			return nil, err
		}
	}
	next, err := h.s.MutateConf(m, validateOnly)
	if err != nil {
		return nil, textError(h.o.reinitError(err))
	}
	return next, nil
}

type textError string

func (e textError) Error() string { return string(e) }

// reinit33 is what a 3.3 RM checks first when it re-reads the queues: one
// capacity mode per queue across partitions, then the children's sums — so
// removing a RUNNING leaf fails with the sum message, not with "not
// stopped" (recorded).
func (h *handler) reinit33(conf schedconf.Conf, m schedconf.Mutation) error {
	stopped := conf.Clone()
	for _, q := range m.RemoveQueue {
		stopped[schedconf.Key(strings.TrimSpace(q), "state")] = "STOPPED"
	}
	next, err := stopped.Apply(m)
	if err != nil {
		return nil // the mutation itself is wrong; MutateConf says how
	}
	if err := mixedModeAcrossPartitions(next); err != nil {
		return err
	}
	if len(m.RemoveQueue) > 0 {
		if err := schedconf.Validate(next); err != nil {
			return textError(h.o.reinitError(err))
		}
	}
	return nil
}

// unknownQueuesAsGlobal turns update-queue entries for queues that do not
// exist into global-updates: the RM accepts them and writes the properties
// (recorded: update-queue root.nosuch capacity=10 → 200, the key is in the
// configuration).
func unknownQueuesAsGlobal(conf schedconf.Conf, m schedconf.Mutation) schedconf.Mutation {
	known := map[string]bool{}
	if t, err := schedconf.ParseTree(conf); err == nil {
		for p := range t.ByPath {
			known[p] = true
		}
	}
	for _, aq := range m.AddQueue {
		known[strings.TrimSpace(aq.Queue)] = true
	}
	var keep []schedconf.QueueUpdate
	for _, uq := range m.UpdateQueue {
		path := strings.TrimSpace(uq.Queue)
		if known[path] {
			keep = append(keep, uq)
			continue
		}
		global := make(map[string]string, len(m.GlobalUpdates)+len(uq.Params))
		for k, v := range m.GlobalUpdates {
			global[k] = v
		}
		for k, v := range uq.Params {
			global[schedconf.Key(path, k)] = v
		}
		m.GlobalUpdates = global
	}
	m.UpdateQueue = keep
	return m
}

func (h *handler) schedConfVersion(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodGet) || !h.authorizeWrite(w, r, true) {
		return
	}
	if !h.o.MutableConfStore {
		confText(w, http.StatusBadRequest, notMutableVersion)
		return
	}
	_, v := h.s.SchedulerConf()
	// Jersey's default JSON writes the long as a string (recorded).
	writeJSON(w, map[string]any{"versionID": strconv.FormatInt(v, 10)})
}
