package kubernetes

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/redirectd/redirectd/engine/admin"
)

// TestManifests decodes every manifest strictly, loads the ConfigMap's
// config with the project's loader and lint (as `redirectd check` does),
// and checks that the manifests agree with it and with each other.
func TestManifests(t *testing.T) {
	fs, err := readFiles(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	if problems := fs.problems(t.TempDir()); len(problems) > 0 {
		t.Fatalf("the manifests disagree:\n%s", strings.Join(problems, "\n"))
	}
	m, _ := fs.decode()
	s, _ := loadConfig(t.TempDir(), m.ConfigMap)
	// serve hands [admin] to admin.New, which refuses (at start, not at
	// check) a non-loopback listen without a token. It only checks the
	// options here: the Backend is never called.
	if _, err := admin.New(admin.Options{Listen: s.AdminListen, Token: s.Token}, struct{ admin.Backend }{}); err != nil {
		t.Errorf("redirectd would refuse to start with this [admin]: %v", err)
	}
}

// problems decodes fs, loads its config and checks them; a decode or load
// error is the one problem.
func (fs files) problems(dir string) []string {
	m, err := fs.decode()
	if err != nil {
		return []string{err.Error()}
	}
	s, err := loadConfig(dir, m.ConfigMap)
	if err != nil {
		return []string{"the ConfigMap's config: " + err.Error()}
	}
	return m.check(s)
}

// edit replaces old by new in one file.
type edit struct{ file, old, new string }

// with returns a copy of fs with the edits made. Each old text must occur
// exactly once, so that a mutation that no longer applies fails the test
// instead of testing nothing.
func (fs files) with(t *testing.T, edits ...edit) files {
	t.Helper()
	out := maps.Clone(fs)
	for _, e := range edits {
		text := string(out[e.file])
		if n := strings.Count(text, e.old); n != 1 {
			t.Fatalf("%s holds %q %d times, want once: update this case to the manifests", e.file, e.old, n)
		}
		out[e.file] = []byte(strings.Replace(text, e.old, e.new, 1))
	}
	return out
}

// TestManifestsCatchDrift changes one side of each agreement in a copy of
// the manifests and expects the check to name it: a port, path, token,
// selector or timeout changed in one place only must fail TestManifests.
func TestManifestsCatchDrift(t *testing.T) {
	base, err := readFiles(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	const dep, cm = "deployment.yaml", "configmap.yaml"
	for _, tc := range []struct {
		name  string
		edits []edit
		want  string
	}{
		{"container http port", []edit{{dep, "containerPort: 8080", "containerPort: 8081"}}, `container port "http" is 8081 but the config's [server] listen is port 8080`},
		{"config listen port", []edit{{cm, `listen = ":8080"`, `listen = ":8081"`}}, `container port "http" is 8080 but the config's [server] listen is port 8081`},
		{"container admin port", []edit{{dep, "containerPort: 9180", "containerPort: 9181"}}, `container port "admin" is 9181`},
		{"config admin port", []edit{{cm, `listen = ":9180"`, `listen = "0.0.0.0:9181"`}}, `readinessProbe probes port admin (9180) but the config's [admin] listen is port 9181`},
		{"admin on loopback", []edit{{cm, `listen = ":9180"`, `listen = "127.0.0.1:9180"`}}, `is loopback`},
		{"readiness path", []edit{{dep, "path: /readyz", "path: /ready"}}, `readinessProbe asks "/ready"`},
		{"liveness path", []edit{{dep, "livenessProbe:\n            httpGet:\n              path: /healthz", "livenessProbe:\n            httpGet:\n              path: /livez"}}, `livenessProbe asks "/livez"`},
		{"readiness on traffic port", []edit{{dep, "path: /readyz\n              port: admin", "path: /readyz\n              port: http"}}, `readinessProbe probes port http (8080)`},
		{"liveness by number", []edit{{dep, "path: /healthz\n              port: admin\n            periodSeconds: 10", "path: /healthz\n              port: 9181\n            periodSeconds: 10"}}, `livenessProbe probes port 9181 (0)`},
		{"token in the ConfigMap", []edit{{cm, `token_file = "/etc/redirectd/secret/token"`, `token = "change-me-to-a-long-random-token"`}}, `the ConfigMap's config holds [admin] token in plain text`},
		{"token file not the Secret's", []edit{{cm, `token_file = "/etc/redirectd/secret/token"`, `token_file = "/etc/redirectd/token"`}}, `[admin] token_file /etc/redirectd/token is not a key of a Secret mounted`},
		{"Secret mounted elsewhere", []edit{{dep, "mountPath: /etc/redirectd/secret", "mountPath: /etc/secret"}}, `[admin] token_file /etc/redirectd/secret/token is not a key of a Secret mounted`},
		{"Secret's key renamed", []edit{{dep, "path: token", "path: admin-token"}}, `is not a key of a Secret mounted`},
		{"probe sends a token", []edit{{dep, "path: /readyz\n              port: admin", "path: /readyz\n              port: admin\n              httpHeaders:\n                - name: Authorization\n                  value: Bearer change-me"}}, `readinessProbe sends an Authorization header`},
		{"service target port", []edit{{"service.yaml", "targetPort: http", "targetPort: 8081"}}, `Service port 80 targets 8081, which is container port 0`},
		{"grace period", []edit{{dep, "terminationGracePeriodSeconds: 20", "terminationGracePeriodSeconds: 15"}}, `terminationGracePeriodSeconds 15 does not exceed`},
		{"shutdown timeout", []edit{{cm, `shutdown_timeout = "10s"`, `shutdown_timeout = "15s"`}}, `does not exceed the preStop sleep (5 s) plus [server] shutdown_timeout (15s)`},
		{"preStop sleep", []edit{{dep, "seconds: 5", "seconds: 10"}}, `does not exceed the preStop sleep (10 s)`},
		{"pdb selector", []edit{{"pdb.yaml", "matchLabels:\n      app.kubernetes.io/name: redirectd", "matchLabels:\n      app.kubernetes.io/name: redirect"}}, `PodDisruptionBudget selector app.kubernetes.io/name=redirect does not match`},
		{"service selector", []edit{{"service.yaml", "selector:\n    app.kubernetes.io/name: redirectd", "selector:\n    app.kubernetes.io/name: web"}}, `the Service selector map[app.kubernetes.io/name:web] does not match`},
		{"pod labels", []edit{{dep, "labels:\n        app.kubernetes.io/name: redirectd", "labels:\n        app.kubernetes.io/name: other"}}, `selector app.kubernetes.io/name=redirectd does not match the Deployment's pod labels`},
		{"hpa target", []edit{{"hpa.yaml", "kind: Deployment\n    name: redirectd", "kind: Deployment\n    name: redirector"}}, `the HPA scales apps/v1 Deployment/redirector`},
		{"no cpu request", []edit{{dep, "requests:\n              cpu: 250m\n", "requests:\n"}}, `no CPU request`},
		{"replicas", []edit{{dep, "revisionHistoryLimit: 5", "revisionHistoryLimit: 5\n  replicas: 3"}}, `sets replicas`},
		{"writable root", []edit{{dep, "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false"}}, `readOnlyRootFilesystem is not true`},
		{"root", []edit{{dep, "runAsNonRoot: true\n            readOnly", "runAsNonRoot: false\n            readOnly"}}, `runAsNonRoot is not true`},
		{"escalation", []edit{{dep, "allowPrivilegeEscalation: false", "allowPrivilegeEscalation: true"}}, `allowPrivilegeEscalation is not false`},
		{"capability", []edit{{dep, `drop: ["ALL"]`, `drop: ["ALL"]` + "\n              add: [\"NET_BIND_SERVICE\"]"}}, `capabilities must drop ALL and add none`},
		{"port 80", []edit{{dep, "containerPort: 8080", "containerPort: 80"}, {cm, `listen = ":8080"`, `listen = ":80"`}}, `container port 80 is below 1024`},
		{"config path", []edit{{dep, `"/etc/redirectd/redirectd.toml"`, `"/etc/redirectd/config.toml"`}}, `-config /etc/redirectd/config.toml is not redirectd.toml of ConfigMap redirectd-config`},
		{"no preStop", []edit{{dep, "preStop:\n", "postStart:\n"}}, `no preStop sleep`},
		{"unknown field", []edit{{dep, "readinessProbe:", "readinesProbe:"}}, `json: unknown field "readinesProbe"`},
		{"duplicate key", []edit{{"pdb.yaml", "maxUnavailable: 1", "maxUnavailable: 1\n  maxUnavailable: 2"}}, `already set in map`},
		{"old api version", []edit{{"hpa.yaml", "autoscaling/v2", "autoscaling/v1"}}, `has apiVersion "autoscaling/v1", want "autoscaling/v2"`},
		{"missing resource", []edit{{"kustomization.yaml", "  - pdb.yaml\n", ""}}, `want one ConfigMap, Deployment, Service, PodDisruptionBudget and HorizontalPodAutoscaler`},
		{"unknown config key", []edit{{cm, `watch = true`, `watch = true` + "\n    wath_interval = \"5s\""}}, `wath_interval: unknown key`},
		{"bad rule", []edit{{cm, `status = 308`, `status = 399`}}, `status`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(base.with(t, tc.edits...).problems(t.TempDir()), "\n")
			if !strings.Contains(got, tc.want) {
				t.Errorf("problems do not say %q:\n%s", tc.want, got)
			}
		})
	}
}

// TestSourceOverlay checks deploy/kubernetes/source: its kustomization
// patches the base ConfigMap, and its config agrees with the base
// Deployment. The loader checks the config in full once it knows [rules]
// source, poll and cache_dir; until then the ports, token,
// shutdown_timeout and cache_dir are read from the TOML without it.
func TestSourceOverlay(t *testing.T) {
	base, err := readFiles(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := base.decode()
	if err != nil {
		t.Fatal(err)
	}
	var kz kustomization
	if err := decodeFile(filepath.Join("source", "kustomization.yaml"), &kz); err != nil {
		t.Fatal(err)
	}
	var patches []string
	for _, p := range kz.Patches {
		patches = append(patches, p.Path)
	}
	if diff := cmp.Diff([]string{"../" + baseDir}, kz.Resources); diff != "" {
		t.Errorf("source/kustomization.yaml resources (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"configmap.yaml"}, patches); diff != "" {
		t.Errorf("source/kustomization.yaml patches (-want +got):\n%s", diff)
	}
	text, err := os.ReadFile(filepath.Join("source", "configmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, text []byte) ([]string, string) {
		var cm corev1.ConfigMap
		if err := decodeStrict("source/configmap.yaml", text, &cm); err != nil {
			return []string{err.Error()}, ""
		}
		if cm.Name != m.ConfigMap.Name {
			return []string{"source/configmap.yaml patches ConfigMap " + cm.Name + ", not the base's " + m.ConfigMap.Name}, ""
		}
		over := *m
		over.ConfigMap = &cm
		return over.checkSource(t.TempDir())
	}
	problems, loosely := check(t, text)
	if len(problems) > 0 {
		t.Fatalf("source/configmap.yaml disagrees with the base:\n%s", strings.Join(problems, "\n"))
	}
	if loosely != "" {
		t.Logf("the loader does not know the URL source's keys yet, so source/configmap.yaml was checked without it:\n%s", loosely)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"admin port", `listen = ":9180"`, `listen = ":9181"`, `is port 9181`},
		{"token in the ConfigMap", `token_file = "/etc/redirectd/secret/token"`, `token = "change-me"`, `holds [admin] token in plain text`},
		{"cache on the read-only root", `cache_dir = "/var/cache/redirectd"`, `cache_dir = "/var/lib/redirectd"`, `cache_dir /var/lib/redirectd is not on a writable`},
		{"no cache", `cache_dir = "/var/cache/redirectd"`, ``, `no [rules] cache_dir`},
		{"other ConfigMap", "name: redirectd-config", "name: redirectd-source", `patches ConfigMap redirectd-source`},
		{"unknown key", `poll = "30s"`, `pol = "30s"`, `pol: unknown key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Count(string(text), tc.old) != 1 {
				t.Fatalf("source/configmap.yaml holds %q not once: update this case", tc.old)
			}
			problems, _ := check(t, []byte(strings.Replace(string(text), tc.old, tc.new, 1)))
			if got := strings.Join(problems, "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("problems do not say %q:\n%s", tc.want, got)
			}
		})
	}
}

// checkSource checks m, whose ConfigMap holds a URL-source config: with
// the loader when it knows the source keys, else with looseConfig, and
// then says why in loosely.
func (m *manifests) checkSource(dir string) (problems []string, loosely string) {
	loose, err := looseConfig(m.ConfigMap)
	if err != nil {
		return []string{err.Error()}, ""
	}
	if loose.CacheDir == "" {
		return []string{"the source config has no [rules] cache_dir: a restarted pod could not serve while the source is down"}, ""
	}
	s, err := loadConfig(dir, m.ConfigMap)
	switch {
	case err != nil && onlySourceKeysUnknown(err):
		loosely = err.Error()
		s = loose
	case err != nil:
		return []string{err.Error()}, ""
	}
	s.CacheDir = loose.CacheDir
	return m.check(s), loosely
}

// TestKustomizationsNameEveryFile fails on a manifest that a
// kustomization does not name (readFiles does this for base/), and checks
// that deploy/kubernetes builds on base/.
func TestKustomizationsNameEveryFile(t *testing.T) {
	for dir, want := range map[string][]string{
		".":          {"kustomization.yaml"},
		"source":     {"configmap.yaml", "kustomization.yaml"},
		"monitoring": {"kustomization.yaml", "podmonitor.yaml"},
	} {
		yamls, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		var names []string
		for _, y := range yamls {
			names = append(names, filepath.Base(y))
		}
		slices.Sort(names)
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("YAML files in %s (-want +got); name a new one in its kustomization.yaml and here:\n%s", dir, diff)
		}
	}
	var kz kustomization
	if err := decodeFile("kustomization.yaml", &kz); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{baseDir}, kz.Resources); diff != "" || len(kz.Patches) > 0 {
		t.Errorf("kustomization.yaml should be base/ alone (-want +got):\n%s%v", diff, kz.Patches)
	}
}

// TestKustomizeBuild renders both kustomizations with kubectl's kustomize,
// where kubectl is installed, and checks what it renders, the source
// overlay's patch applied: the layout of the folders and the patch are
// kustomize's to judge (it refuses an overlay nested in its base, for one).
func TestKustomizeBuild(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed: the kustomizations were not rendered here")
	}
	for _, dir := range []string{".", "source"} {
		t.Run(dir, func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(kubectl, "kustomize", dir)
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, stderr.String())
			}
			m := &manifests{}
			for i, doc := range bytes.Split(out, []byte("\n---\n")) {
				if err := m.add(fmt.Sprintf("rendered %s, document %d", dir, i+1), doc); err != nil {
					t.Fatal(err)
				}
			}
			if m.ConfigMap == nil || m.Deployment == nil || m.Service == nil || m.PDB == nil || m.HPA == nil {
				t.Fatalf("kubectl kustomize %s rendered %+v", dir, *m)
			}
			var problems []string
			if dir == "." {
				s, err := loadConfig(t.TempDir(), m.ConfigMap)
				if err != nil {
					t.Fatal(err)
				}
				problems = m.check(s)
			} else {
				problems, _ = m.checkSource(t.TempDir())
				if !strings.Contains(m.ConfigMap.Data[configKey], "source = ") {
					t.Errorf("the rendered overlay's config has no [rules] source: the patch was not applied")
				}
			}
			if len(problems) > 0 {
				t.Errorf("rendered %s:\n%s", dir, strings.Join(problems, "\n"))
			}
		})
	}
}
