package yarn

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// HTTPS with a CA file: the RM's certificate verifies against the given
// bundle, and a file without certificates is refused with its name.
func TestTLSWithCAFile(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"nodes":{"node":[{"id":"n1:8041","nodeHostName":"n1","rack":"/r1","state":"RUNNING"}]}}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	cert := srv.Certificate()
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{RMAddresses: []string{srv.URL}, TLS: TLS{CAFile: ca}})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Nodes(context.Background())
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes over HTTPS with the CA file: %v, %v", nodes, err)
	}
	// Without the CA the same call fails certificate verification.
	plain, _ := New(Config{RMAddresses: []string{srv.URL}, Retries: -1})
	if _, err := plain.Nodes(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("untrusted certificate accepted or unclear error: %v", err)
	}
	empty := filepath.Join(dir, "empty.pem")
	os.WriteFile(empty, []byte("not a certificate"), 0o600)
	if _, err := New(Config{RMAddresses: []string{srv.URL}, TLS: TLS{CAFile: empty}}); err == nil || !strings.Contains(err.Error(), "empty.pem") {
		t.Fatalf("bad CA file: %v", err)
	}
}

// Kerberos misconfiguration fails at start with the file or field named,
// never at the first cycle.
func TestKerberosConfigErrors(t *testing.T) {
	dir := t.TempDir()
	krb5 := filepath.Join(dir, "krb5.conf")
	os.WriteFile(krb5, []byte("[libdefaults]\n default_realm = EXAMPLE.COM\n[realms]\n EXAMPLE.COM = {\n  kdc = 127.0.0.1:1\n }\n"), 0o600)
	cases := []struct {
		k    Kerberos
		want string
	}{
		{Kerberos{Krb5Conf: filepath.Join(dir, "missing.conf")}, "missing.conf"},
		{Kerberos{Krb5Conf: krb5, Keytab: filepath.Join(dir, "x.keytab"), Principal: "no-realm"}, "want name[/host]@REALM"},
		{Kerberos{Krb5Conf: krb5, Keytab: filepath.Join(dir, "x.keytab"), Principal: "svc@EXAMPLE.COM"}, "x.keytab"},
		{Kerberos{Krb5Conf: krb5, CCache: filepath.Join(dir, "nocache")}, "run kinit"},
	}
	for _, c := range cases {
		k := c.k
		_, err := New(Config{RMAddresses: []string{"http://rm:8088"}, Kerberos: &k})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to mention %q", c.k, err, c.want)
		}
	}
}
