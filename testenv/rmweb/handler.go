package rmweb

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// New serves the RM, MR AM (behind /proxy/{appid}) and JobHistory REST APIs
// for a State.
func New(s State, o Options) http.Handler {
	return newHandler(&handler{s: s, o: o})
}

func newHandler(h *handler) http.Handler {
	s := h.s
	mux := http.NewServeMux()
	mux.HandleFunc("/ws/v1/cluster", h.info)
	mux.HandleFunc("/ws/v1/cluster/info", h.info)
	mux.HandleFunc("/ws/v1/cluster/metrics", h.metrics)
	mux.HandleFunc("/ws/v1/cluster/nodes", h.nodes)
	mux.HandleFunc("/ws/v1/cluster/nodes/", h.node)
	mux.HandleFunc("/ws/v1/cluster/get-node-labels", h.getNodeLabels)
	mux.HandleFunc("/ws/v1/cluster/get-node-to-labels", h.getNodeToLabels)
	mux.HandleFunc("/ws/v1/cluster/label-mappings", h.labelMappings)
	mux.HandleFunc("/ws/v1/cluster/get-labels-to-nodes", webAppNotFound)
	mux.HandleFunc("/ws/v1/cluster/add-node-labels", h.addNodeLabels)
	mux.HandleFunc("/ws/v1/cluster/remove-node-labels", h.removeNodeLabels)
	mux.HandleFunc("/ws/v1/cluster/replace-node-to-labels", h.replaceNodeToLabels)
	mux.HandleFunc("/ws/v1/cluster/scheduler", h.scheduler)
	mux.HandleFunc("/ws/v1/cluster/scheduler-conf", h.schedConf)
	mux.HandleFunc("/ws/v1/cluster/scheduler-conf/version", h.schedConfVersion)
	mux.HandleFunc("/ws/v1/cluster/scheduler-conf/validate", h.schedConfValidate)
	mux.HandleFunc("/ws/v1/cluster/apps", h.apps)
	mux.HandleFunc("/ws/v1/cluster/apps/", h.app)
	mux.HandleFunc("/proxy/", h.proxy)
	mux.HandleFunc("/ws/v1/history", h.historyInfo)
	mux.HandleFunc("/ws/v1/history/info", h.historyInfo)
	mux.HandleFunc("/ws/v1/history/mapreduce/jobs", h.historyJobs)
	mux.HandleFunc("/ws/v1/history/mapreduce/jobs/", h.historyJob)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		remoteError(w, http.StatusNotFound, "NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException",
			"java.lang.Exception: no resource at "+r.URL.Path)
	})
	// The RM's clock is the mini cluster's virtual clock: every answer's
	// Date header says so, as a real RM's says its wall clock.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", s.Now().UTC().Format(http.TimeFormat))
		mux.ServeHTTP(w, r)
	})
}

type handler struct {
	s State
	o Options
	// appTrackingHost, when set, is the host:port of an app's trackingUrl
	// (an HA pair: the RM that was active when the app started).
	appTrackingHost func(a App) string
}

// trackingHost is the RM address an app's trackingUrl names.
func (h *handler) trackingHost(a App, r *http.Request) string {
	if h.appTrackingHost != nil {
		if host := h.appTrackingHost(a); host != "" {
			return host
		}
	}
	return r.Host
}

// remoteError writes Hadoop's RemoteException JSON (GenericExceptionHandler).
func remoteError(w http.ResponseWriter, status int, exception, class, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"RemoteException": map[string]string{
		"exception": exception, "message": msg, "javaClassName": class}})
}

func notFound(w http.ResponseWriter, msg string) {
	remoteError(w, http.StatusNotFound, "NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", "java.lang.Exception: "+msg)
}

func badRequest(w http.ResponseWriter, msg string) {
	remoteError(w, http.StatusBadRequest, "BadRequestException", "org.apache.hadoop.yarn.webapp.BadRequestException", "java.lang.Exception: "+msg)
}

// plain writes a plain-text answer, as the scheduler-conf and app PUTs do.
func plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	io.WriteString(w, msg)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	if err := enc.Encode(v); err != nil {
		// The status is already sent; nothing more to do than stop.
		return
	}
}

// user is the simple-auth caller (?user.name=); "" when absent.
func user(r *http.Request) string { return r.URL.Query().Get("user.name") }

// authorizeWrite enforces simple auth and the admin ACL on write endpoints.
func (h *handler) authorizeWrite(w http.ResponseWriter, r *http.Request, admin bool) bool {
	u := user(r)
	if h.o.RequireUser && u == "" {
		remoteError(w, http.StatusUnauthorized, "AuthorizationException", "org.apache.hadoop.security.authorize.AuthorizationException",
			"Unable to obtain user name, user not authenticated")
		return false
	}
	if admin && !h.isAdmin(r) {
		remoteError(w, http.StatusForbidden, "ForbiddenException", "org.apache.hadoop.yarn.webapp.ForbiddenException",
			"java.lang.Exception: Only admins can carry out this operation.")
		return false
	}
	return true
}

// isAdmin: the caller is in yarn.admin.acl (any caller when it is unset).
// Without ?user.name= the RM acts as hadoop.http.staticuser.user (recorded:
// a PUT without user.name under staticuser hadoop, an admin, was applied).
func (h *handler) isAdmin(r *http.Request) bool {
	if len(h.o.AdminUsers) == 0 {
		return true
	}
	u := user(r)
	if u == "" {
		u = h.o.StaticUser
		if u == "" {
			u = "dr.who"
		}
	}
	for _, a := range h.o.AdminUsers {
		if a == u || a == "*" {
			return true
		}
	}
	return false
}

func method(w http.ResponseWriter, r *http.Request, allowed ...string) bool {
	for _, m := range allowed {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	remoteError(w, http.StatusMethodNotAllowed, "WebApplicationException", "javax.ws.rs.WebApplicationException",
		fmt.Sprintf("HTTP %d Method Not Allowed", http.StatusMethodNotAllowed))
	return false
}

func ms(t interface {
	UnixMilli() int64
	IsZero() bool
}) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
