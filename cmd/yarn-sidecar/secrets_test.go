package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"

	"github.com/yarn-sidecar/yarn-sidecar/internal/testutil"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The secrets of a Kerberized cluster that must never leave the process:
// keytab keys, the SPNEGO tokens, the hadoop.auth cookie, passwords.
const (
	kdcMasterPassword = "Mst3r-p4ssw0rd-never-logged"
	userPassword      = "Us3r-p4ssw0rd-never-logged"
	authCookieSecret  = "s=SIGNATURE-never-logged-Zq8x"
	delegationToken   = "HAAEZGVsZWdhdGlvbi10b2tlbi1uZXZlci1sb2dnZWQ"
)

// startKDC runs MIT krb5kdc on loopback with a fresh realm in a temp dir;
// it skips when Debian's krb5-kdc and krb5-admin-server are absent.
func startKDC(t *testing.T) (krb5conf, clientKeytab, httpKeytab string) {
	t.Helper()
	for _, b := range []string{"krb5kdc", "kdb5_util", "kadmin.local"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed (apt-get install krb5-kdc krb5-admin-server): skipping the Kerberos secrets test", b)
		}
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	krb5conf = filepath.Join(dir, "krb5.conf")
	kdcconf := filepath.Join(dir, "kdc.conf")
	os.WriteFile(krb5conf, []byte(fmt.Sprintf(`[libdefaults]
 default_realm = EXAMPLE.COM
 dns_lookup_kdc = false
 dns_lookup_realm = false
 udp_preference_limit = 1
 default_tkt_enctypes = aes256-cts-hmac-sha1-96
 default_tgs_enctypes = aes256-cts-hmac-sha1-96
 permitted_enctypes = aes256-cts-hmac-sha1-96
[realms]
 EXAMPLE.COM = {
  kdc = 127.0.0.1:%d
 }
`, port)), 0o600)
	os.WriteFile(kdcconf, []byte(fmt.Sprintf(`[kdcdefaults]
 kdc_listen = 127.0.0.1:%d
 kdc_tcp_listen = 127.0.0.1:%d
[realms]
 EXAMPLE.COM = {
  database_name = %s/principal
  key_stash_file = %s/stash
  acl_file = %s/kadm5.acl
  supported_enctypes = aes256-cts-hmac-sha1-96:normal
  max_life = 1h
 }
[logging]
 kdc = FILE:%s/kdc.log
`, port, port, dir, dir, dir, dir)), 0o600)
	env := append(os.Environ(), "KRB5_CONFIG="+krb5conf, "KRB5_KDC_PROFILE="+kdcconf)
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("kdb5_util", "create", "-s", "-r", "EXAMPLE.COM", "-P", kdcMasterPassword)
	clientKeytab, httpKeytab = filepath.Join(dir, "sidecar.keytab"), filepath.Join(dir, "http.keytab")
	run("kadmin.local", "-r", "EXAMPLE.COM", "-q", "addprinc -randkey yarn-sidecar/localhost@EXAMPLE.COM")
	run("kadmin.local", "-r", "EXAMPLE.COM", "-q", "addprinc -randkey HTTP/127.0.0.1@EXAMPLE.COM")
	run("kadmin.local", "-r", "EXAMPLE.COM", "-q", "addprinc -pw "+userPassword+" alice@EXAMPLE.COM")
	run("kadmin.local", "-r", "EXAMPLE.COM", "-q", "ktadd -k "+clientKeytab+" yarn-sidecar/localhost@EXAMPLE.COM")
	run("kadmin.local", "-r", "EXAMPLE.COM", "-q", "ktadd -k "+httpKeytab+" HTTP/127.0.0.1@EXAMPLE.COM")
	kdc := exec.Command("krb5kdc", "-n", "-r", "EXAMPLE.COM")
	kdc.Env = env
	kdcOut := &lockedBuf{}
	kdc.Stdout, kdc.Stderr = kdcOut, kdcOut
	if err := kdc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kdc.Process.Kill(); _ = kdc.Wait() })
	if !testutil.Poll(20*time.Second, 50*time.Millisecond, func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("krb5kdc did not listen:\n%s", kdcOut.String())
	}
	return krb5conf, clientKeytab, httpKeytab
}

// kerberizedRM puts Hadoop's AuthenticationFilter behaviour in front of the
// mini RM: SPNEGO (verified with the HTTP/ keytab) or a valid hadoop.auth
// cookie; a successful SPNEGO sets the cookie. Every Authorization token
// seen is kept, to be searched for in the sidecar's outputs. Error answers
// carry a delegation token, as a careless proxy might.
type kerberizedRM struct {
	log    *log.Logger
	mu     sync.Mutex
	tokens []string
	cookie int // requests authenticated by the cookie
}

func (k *kerberizedRM) handler(inner http.Handler, kt *keytab.Keytab) http.Handler {
	cookie := "u=yarn-sidecar&p=yarn-sidecar/localhost@EXAMPLE.COM&t=kerberos&e=9999999999999&" + authCookieSecret
	withCookie := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "hadoop.auth", Value: cookie, Path: "/", HttpOnly: true})
		if strings.Contains(r.URL.Path, "/appattempts") {
			// An error body that names a secret: it must not be echoed.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"RemoteException":{"exception":"WebApplicationException","message":"token %s hadoop.auth=%s","javaClassName":"x"}}`, delegationToken, cookie)
			return
		}
		inner.ServeHTTP(w, r)
	})
	spnegoed := spnego.SPNEGOKRB5Authenticate(withCookie, kt, service.DecodePAC(false), service.Logger(k.log))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("hadoop.auth"); err == nil && c.Value == cookie {
			k.mu.Lock()
			k.cookie++
			k.mu.Unlock()
			withCookie.ServeHTTP(w, r)
			return
		}
		if a := r.Header.Get("Authorization"); a != "" {
			k.mu.Lock()
			k.tokens = append(k.tokens, strings.TrimPrefix(a, "Negotiate "))
			k.mu.Unlock()
		}
		spnegoed.ServeHTTP(w, r)
	})
}

// TestSecretsNeverLeave runs the daemon against a Kerberized mini RM (real
// MIT KDC, SPNEGO, hadoop.auth cookie) at trace log level and searches
// every output — logs, audit log, /metrics, /report, /healthz — for the
// keytab keys, the SPNEGO tokens, the cookie, the delegation token and the
// passwords.
func TestSecretsNeverLeave(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a KDC")
	}
	krb5conf, clientKT, httpKT := startKDC(t)
	ktBytes, err := os.ReadFile(httpKT)
	if err != nil {
		t.Fatal(err)
	}
	kt := keytab.New()
	if err := kt.Unmarshal(ktBytes); err != nil {
		t.Fatal(err)
	}
	c := sim.Start(t, "lee-gpu", 2)
	c.Step(2 * time.Minute)
	krm := &kerberizedRM{log: log.New(os.Stderr, "fake RM SPNEGO: ", 0)}
	srv := httptest.NewServer(krm.handler(c.Handler(), kt))
	defer srv.Close()

	dir := t.TempDir()
	bin := filepath.Join(dir, "yarn-sidecar")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	audit := filepath.Join(dir, "audit.jsonl")
	cfg := filepath.Join(dir, "sidecar.yaml")
	conf := fmt.Sprintf("mode: apply\nrm: [%s]\njobhistory: %s\ninterval: 1s\nstore: %s\naudit_log: %s\nlisten: 127.0.0.1:0\n"+
		"kerberos:\n  principal: yarn-sidecar/localhost@EXAMPLE.COM\n  keytab: %s\n  krb5_conf: %s\n",
		srv.URL, srv.URL, filepath.Join(dir, "history.db"), audit, clientKT, krb5conf)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", cfg, "--log-level", "trace", "--log-json")
	cmd.Env = append(os.Environ(), "KRB5_CONFIG="+krb5conf)
	out := &lockedBuf{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	defer func() { _ = cmd.Process.Kill(); <-done }()
	re := regexp.MustCompile(`metrics at (http://\S+)/metrics`)
	var base string
	if !testutil.Poll(30*time.Second, 50*time.Millisecond, func() bool {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		return base != ""
	}) {
		t.Fatalf("daemon did not start:\n%s", out.String())
	}
	if !testutil.Poll(60*time.Second, 100*time.Millisecond, func() bool {
		c.Step(20 * time.Second)
		krm.mu.Lock()
		n := krm.cookie
		krm.mu.Unlock()
		return n > 0 && metricValue(t, base+"/metrics", "yarn_sidecar_cycles_total") >= 3
	}) {
		t.Fatalf("no cycles over SPNEGO and the cookie within 60 s:\n%s", tail(out.String(), 3000))
	}
	var outputs bytes.Buffer
	for _, p := range []string{"/metrics", "/report", "/healthz"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(&outputs, resp.Body)
		resp.Body.Close()
	}
	a, _ := os.ReadFile(audit)
	outputs.Write(a)
	outputs.WriteString(out.String())
	all := outputs.String()

	secrets := map[string]string{
		"KDC master password": kdcMasterPassword, "user password": userPassword,
		"hadoop.auth cookie signature": authCookieSecret, "delegation token": delegationToken,
	}
	ck, _ := os.ReadFile(clientKT)
	ckt := keytab.New()
	if err := ckt.Unmarshal(ck); err != nil {
		t.Fatal(err)
	}
	for i, e := range append(ckt.Entries, kt.Entries...) {
		secrets[fmt.Sprintf("keytab key %d (hex)", i)] = hex.EncodeToString(e.Key.KeyValue)
		secrets[fmt.Sprintf("keytab key %d (base64)", i)] = base64.StdEncoding.EncodeToString(e.Key.KeyValue)
	}
	krm.mu.Lock()
	for i, tok := range krm.tokens {
		if len(tok) > 40 {
			secrets[fmt.Sprintf("SPNEGO token %d", i)] = tok[len(tok)/2 : len(tok)/2+32]
		}
	}
	nTokens := len(krm.tokens)
	krm.mu.Unlock()
	if nTokens == 0 {
		t.Fatal("the daemon never sent a SPNEGO token: Kerberos was not exercised")
	}
	for what, s := range secrets {
		if strings.Contains(all, s) {
			i := strings.Index(all, s)
			t.Errorf("%s appears in the outputs: …%s…", what, all[max(0, i-200):min(len(all), i+len(s)+50)])
		}
	}
	t.Logf("searched %d bytes of logs, audit, /metrics, /report, /healthz for %d secrets (%d SPNEGO tokens seen)", len(all), len(secrets), nTokens)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// /metrics and /report listen on loopback unless configured otherwise.
func TestListenDefaultsToLoopback(t *testing.T) {
	c, err := sidecar.ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	host, _, err := net.SplitHostPort(c.Listen)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		t.Fatalf("default listen address %q is not loopback", c.Listen)
	}
}
