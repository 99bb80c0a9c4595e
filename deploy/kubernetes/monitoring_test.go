package kubernetes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/redirectd/redirectd/internal/testutil"
)

// podMonitor is the part of the Prometheus Operator's PodMonitor that
// monitoring/podmonitor.yaml uses; decoding strictly fails on a field the
// test does not know, a misspelt one included.
type podMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector            metav1.LabelSelector `json:"selector"`
		PodMetricsEndpoints []struct {
			Port          string `json:"port"`
			Path          string `json:"path"`
			Interval      string `json:"interval"`
			Authorization struct {
				Type        string `json:"type"`
				Credentials struct {
					Name string `json:"name"`
					Key  string `json:"key"`
				} `json:"credentials"`
			} `json:"authorization"`
		} `json:"podMetricsEndpoints"`
	} `json:"spec"`
}

// scrapeConfig is the part of monitoring/prometheus.yml this test reads.
type scrapeConfig struct {
	ScrapeConfigs []struct {
		JobName       string `json:"job_name"`
		MetricsPath   string `json:"metrics_path"`
		Authorization struct {
			Type            string `json:"type"`
			CredentialsFile string `json:"credentials_file"`
			Credentials     string `json:"credentials"`
		} `json:"authorization"`
		RelabelConfigs []struct {
			SourceLabels []string `json:"source_labels"`
			Regex        string   `json:"regex"`
			Action       string   `json:"action"`
		} `json:"relabel_configs"`
	} `json:"scrape_configs"`
}

// TestMonitoring checks that the PodMonitor and the plain scrape job
// scrape what the Deployment serves: pods of its labels, the container
// port of the config's [admin] listen, /metrics, with the token of the
// Secret the config's token_file is mounted from, and never a token of
// their own.
func TestMonitoring(t *testing.T) {
	fs, err := readFiles(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := fs.decode()
	if err != nil {
		t.Fatal(err)
	}
	s, err := loadConfig(t.TempDir(), m.ConfigMap)
	if err != nil {
		t.Fatal(err)
	}
	c := &m.Deployment.Spec.Template.Spec.Containers[0]
	secret, key, ok := tokenSecret(m, c, s.TokenFile)
	if !ok {
		t.Fatalf("[admin] token_file %q is not a mounted Secret's key", s.TokenFile)
	}
	adminPort, _ := port(s.AdminListen)
	podLabels := m.Deployment.Spec.Template.Labels

	var pm podMonitor
	if err := decodeFile(filepath.Join("monitoring", "podmonitor.yaml"), &pm); err != nil {
		t.Fatal(err)
	}
	if pm.APIVersion != "monitoring.coreos.com/v1" || pm.Kind != "PodMonitor" {
		t.Errorf("monitoring/podmonitor.yaml is %s %s", pm.APIVersion, pm.Kind)
	}
	if sel, err := metav1.LabelSelectorAsSelector(&pm.Spec.Selector); err != nil || !sel.Matches(labels.Set(podLabels)) {
		t.Errorf("the PodMonitor's selector %v does not select the pods (%v)", pm.Spec.Selector.MatchLabels, podLabels)
	}
	if len(pm.Spec.PodMetricsEndpoints) != 1 {
		t.Fatalf("the PodMonitor has %d endpoints, want 1", len(pm.Spec.PodMetricsEndpoints))
	}
	ep := pm.Spec.PodMetricsEndpoints[0]
	if got, ok := containerPort(c, intstr.FromString(ep.Port)); !ok || got != adminPort {
		t.Errorf("the PodMonitor scrapes port %q (%d), not the admin port %d", ep.Port, got, adminPort)
	}
	if ep.Path != "/metrics" {
		t.Errorf("the PodMonitor scrapes %q, not /metrics", ep.Path)
	}
	if a := ep.Authorization; a.Type != "Bearer" || a.Credentials.Name != secret || a.Credentials.Key != key {
		t.Errorf("the PodMonitor sends %s %s/%s, want Bearer with the Secret %s key %s that token_file reads", a.Type, a.Credentials.Name, a.Credentials.Key, secret, key)
	}

	text, err := os.ReadFile(filepath.Join("monitoring", "prometheus.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var sc scrapeConfig
	if err := yaml.Unmarshal(text, &sc); err != nil {
		t.Fatal(err)
	}
	if len(sc.ScrapeConfigs) != 1 {
		t.Fatalf("monitoring/prometheus.yml has %d scrape jobs, want 1", len(sc.ScrapeConfigs))
	}
	job := sc.ScrapeConfigs[0]
	keeps := map[string]string{}
	for _, r := range job.RelabelConfigs {
		if r.Action == "keep" && len(r.SourceLabels) == 1 {
			keeps[r.SourceLabels[0]] = r.Regex
		}
	}
	if got := keeps["__meta_kubernetes_pod_label_app_kubernetes_io_name"]; got != podLabels["app.kubernetes.io/name"] {
		t.Errorf("the scrape job keeps pods labelled %q, the pods are %q", got, podLabels["app.kubernetes.io/name"])
	}
	if got := keeps["__meta_kubernetes_pod_container_port_name"]; got != ep.Port {
		t.Errorf("the scrape job keeps the port named %q, not %q", got, ep.Port)
	}
	if a := job.Authorization; a.Type != "Bearer" || a.CredentialsFile == "" || a.Credentials != "" || job.MetricsPath != "/metrics" {
		t.Errorf("the scrape job sends %+v to %q: want Bearer read from a credentials_file, to /metrics", a, job.MetricsPath)
	}
	if strings.Contains(string(text), placeholderToken) || strings.Contains(m.ConfigMap.Data[configKey], "token = ") {
		t.Error("a token is written in the manifests")
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		testutil.Missing(t, "promtool is not installed (Debian package prometheus): monitoring/prometheus.yml was not checked by Prometheus' own loader")
	}
	// promtool wants the credentials file to exist: point it at one.
	dir := t.TempDir()
	cred := filepath.Join(dir, "token")
	os.WriteFile(cred, []byte(placeholderToken), 0o600)
	conf := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(conf, []byte(strings.Replace(string(text), job.Authorization.CredentialsFile, cred, 1)), 0o644)
	out, err := exec.Command(promtool, "check", "config", conf).CombinedOutput()
	switch {
	case err != nil && strings.Contains(string(out), "field kubernetes_sd_configs not found"):
		// Debian builds Prometheus without Kubernetes discovery.
		t.Logf("this promtool knows no kubernetes_sd_configs: monitoring/prometheus.yml was not checked by Prometheus' own loader\n%s", out)
	case err != nil:
		t.Errorf("promtool check config monitoring/prometheus.yml: %v\n%s", err, out)
	}
}
