package yarn

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// siteConf is a *-site.xml file.
type siteConf struct {
	Property []struct {
		Name  string `xml:"name"`
		Value string `xml:"value"`
	} `xml:"property"`
}

func loadSite(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	var s siteConf
	if err := xml.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	out := map[string]string{}
	for _, p := range s.Property {
		out[strings.TrimSpace(p.Name)] = strings.TrimSpace(p.Value)
	}
	return out, nil
}

// YarnSite reads HADOOP_CONF_DIR's yarn-site.xml as name → value (empty
// when the file is absent).
func YarnSite(dir string) (map[string]string, error) {
	return loadSite(filepath.Join(dir, "yarn-site.xml"))
}

// ConfigFromHadoopConf reads RM and JobHistory web addresses from
// HADOOP_CONF_DIR's yarn-site.xml and mapred-site.xml: yarn.http.policy
// (HTTPS_ONLY → https and the .https.address keys), RM HA
// (yarn.resourcemanager.ha.enabled, ha.rm-ids, webapp.address.<id>),
// mapreduce.jobhistory.webapp.address, yarn.web-proxy.address.
func ConfigFromHadoopConf(dir string) (Config, error) {
	y, err := loadSite(filepath.Join(dir, "yarn-site.xml"))
	if err != nil {
		return Config{}, err
	}
	m, err := loadSite(filepath.Join(dir, "mapred-site.xml"))
	if err != nil {
		return Config{}, err
	}
	https := strings.EqualFold(y["yarn.http.policy"], "HTTPS_ONLY")
	scheme, key, def := "http://", "yarn.resourcemanager.webapp.address", "8088"
	if https {
		scheme, key, def = "https://", "yarn.resourcemanager.webapp.https.address", "8090"
	}
	host := y["yarn.resourcemanager.hostname"]
	addr := func(k, hostKey string) string {
		if v := y[k]; v != "" {
			return v
		}
		if h := y[hostKey]; h != "" {
			return h + ":" + def
		}
		if host != "" {
			return host + ":" + def
		}
		return ""
	}
	var cfg Config
	if strings.EqualFold(y["yarn.resourcemanager.ha.enabled"], "true") {
		for _, id := range strings.Split(y["yarn.resourcemanager.ha.rm-ids"], ",") {
			if id = strings.TrimSpace(id); id == "" {
				continue
			}
			if a := addr(key+"."+id, "yarn.resourcemanager.hostname."+id); a != "" {
				cfg.RMAddresses = append(cfg.RMAddresses, scheme+a)
			}
		}
	} else if a := addr(key, "yarn.resourcemanager.hostname"); a != "" {
		cfg.RMAddresses = []string{scheme + a}
	}
	if len(cfg.RMAddresses) == 0 {
		return cfg, fmt.Errorf("%s: yarn-site.xml names no ResourceManager web address", dir)
	}
	jk := "mapreduce.jobhistory.webapp.address"
	if https {
		jk = "mapreduce.jobhistory.webapp.https.address"
	}
	if a := m[jk]; a != "" {
		cfg.JHSAddress = scheme + a
	}
	// A standalone web proxy: the RMs then do not serve /proxy/.
	if a := y["yarn.web-proxy.address"]; a != "" {
		cfg.WebProxyAddress = scheme + a
	}
	return cfg, nil
}

// CapacitySchedulerConf reads a capacity-scheduler.xml (the file store's
// configuration, on the RM host) as its yarn.scheduler.capacity.*
// properties, the form GET /scheduler-conf returns on a mutable store.
func CapacitySchedulerConf(path string) (schedconf.Conf, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var s siteConf
	if err := xml.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	out := schedconf.Conf{}
	for _, p := range s.Property {
		if name := strings.TrimSpace(p.Name); strings.HasPrefix(name, schedconf.Prefix) {
			out[name] = strings.TrimSpace(p.Value)
		}
	}
	return out, nil
}

// AdminAddresses reads the RMs' admin addresses (the admin protocol:
// refreshQueues) from HADOOP_CONF_DIR's yarn-site.xml: every
// yarn.resourcemanager.admin.address.<id> with HA, else
// yarn.resourcemanager.admin.address; a missing one is the RM's hostname at
// Hadoop's default port 8033.
func AdminAddresses(dir string) ([]string, error) {
	y, err := loadSite(filepath.Join(dir, "yarn-site.xml"))
	if err != nil {
		return nil, err
	}
	one := func(key, hostKey string) string {
		if a := strings.TrimSpace(y[key]); a != "" {
			return a
		}
		if h := strings.TrimSpace(y[hostKey]); h != "" {
			return h + ":8033"
		}
		return ""
	}
	var out []string
	if strings.EqualFold(y["yarn.resourcemanager.ha.enabled"], "true") {
		for _, id := range strings.Split(y["yarn.resourcemanager.ha.rm-ids"], ",") {
			if id = strings.TrimSpace(id); id == "" {
				continue
			}
			if a := one("yarn.resourcemanager.admin.address."+id, "yarn.resourcemanager.hostname."+id); a != "" {
				out = append(out, a)
			}
		}
	} else if a := one("yarn.resourcemanager.admin.address", "yarn.resourcemanager.hostname"); a != "" {
		out = []string{a}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: yarn-site.xml names no ResourceManager admin address", dir)
	}
	return out, nil
}

// MinimumAllocation is the scheduler's minimum container from a yarn-site
// (yarn.scheduler.minimum-allocation-mb and -vcores; a property left out
// is Hadoop's default, 1024 MB and 1 vcore, yarn-default.xml); zero when
// there is no yarn-site to read.
func MinimumAllocation(site map[string]string) cluster.Resource {
	if site == nil {
		return cluster.Resource{}
	}
	num := func(k string, def int64) int64 {
		if v, err := strconv.ParseInt(strings.TrimSpace(site[k]), 10, 64); err == nil && v > 0 {
			return v
		}
		return def
	}
	return cluster.Resource{MemoryMB: num("yarn.scheduler.minimum-allocation-mb", 1024), VCores: num("yarn.scheduler.minimum-allocation-vcores", 1)}
}
