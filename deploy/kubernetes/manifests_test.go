package kubernetes

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/lint"
)

// configKey is the ConfigMap key holding redirectd's TOML.
const configKey = "redirectd.toml"

// baseDir holds the objects every variant shares.
const baseDir = "base"

// kustomization is the part of kustomize's Kustomization these manifests
// use. kustomize's own types are a large module for three fields; decoding
// strictly into this struct still fails on any field added here that the
// test does not know about.
type kustomization struct {
	metav1.TypeMeta `json:",inline"`
	Resources       []string `json:"resources"`
	Patches         []struct {
		Path string `json:"path"`
	} `json:"patches,omitempty"`
}

// manifests are the objects of deploy/kubernetes, one of each kind.
type manifests struct {
	ConfigMap  *corev1.ConfigMap
	Deployment *appsv1.Deployment
	Service    *corev1.Service
	PDB        *policyv1.PodDisruptionBudget
	HPA        *autoscalingv2.HorizontalPodAutoscaler
}

// files maps a file name, relative to deploy/kubernetes, to its content,
// so that a test can change one before it is decoded.
type files map[string][]byte

// readFiles reads the kustomization of dir and every file it names, and
// fails when a YAML file in dir is missing from the kustomization: a
// manifest that -k would silently leave out.
func readFiles(dir string) (files, error) {
	fs := files{}
	k, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	fs["kustomization.yaml"] = k
	var kz kustomization
	if err := decodeStrict("kustomization.yaml", k, &kz); err != nil {
		return nil, err
	}
	for _, r := range kz.Resources {
		b, err := os.ReadFile(filepath.Join(dir, r))
		if err != nil {
			return nil, fmt.Errorf("kustomization.yaml names %q: %w", r, err)
		}
		fs[r] = b
	}
	yamls, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, y := range yamls {
		if _, ok := fs[filepath.Base(y)]; !ok {
			return nil, fmt.Errorf("%s is not in kustomization.yaml's resources: add it, or kubectl apply -k leaves it out", filepath.Base(y))
		}
	}
	return fs, nil
}

// decode decodes every resource of fs strictly into its API type.
func (fs files) decode() (*manifests, error) {
	var kz kustomization
	if err := decodeStrict("kustomization.yaml", fs["kustomization.yaml"], &kz); err != nil {
		return nil, err
	}
	m := &manifests{}
	for _, name := range kz.Resources {
		for i, doc := range bytes.Split(fs[name], []byte("\n---\n")) {
			where := fmt.Sprintf("%s (document %d)", name, i+1)
			if err := m.add(where, doc); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case m.ConfigMap == nil, m.Deployment == nil, m.Service == nil, m.PDB == nil, m.HPA == nil:
		return nil, fmt.Errorf("want one ConfigMap, Deployment, Service, PodDisruptionBudget and HorizontalPodAutoscaler, got %+v", *m)
	}
	return m, nil
}

// apiVersions are the versions the manifests are written for: the stable
// ones, which every supported Kubernetes serves.
var apiVersions = map[string]string{
	"ConfigMap":               "v1",
	"Service":                 "v1",
	"Deployment":              "apps/v1",
	"PodDisruptionBudget":     "policy/v1",
	"HorizontalPodAutoscaler": "autoscaling/v2",
}

// add decodes one YAML document by its kind into m.
func (m *manifests) add(where string, doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if want, ok := apiVersions[tm.Kind]; !ok {
		return fmt.Errorf("%s: kind %q is not one this test knows; add it to apiVersions and to the checks", where, tm.Kind)
	} else if tm.APIVersion != want {
		return fmt.Errorf("%s: %s has apiVersion %q, want %q", where, tm.Kind, tm.APIVersion, want)
	}
	var obj any
	switch tm.Kind {
	case "ConfigMap":
		obj, m.ConfigMap = once(where, m.ConfigMap, &corev1.ConfigMap{})
	case "Deployment":
		obj, m.Deployment = once(where, m.Deployment, &appsv1.Deployment{})
	case "Service":
		obj, m.Service = once(where, m.Service, &corev1.Service{})
	case "PodDisruptionBudget":
		obj, m.PDB = once(where, m.PDB, &policyv1.PodDisruptionBudget{})
	case "HorizontalPodAutoscaler":
		obj, m.HPA = once(where, m.HPA, &autoscalingv2.HorizontalPodAutoscaler{})
	}
	if obj == nil {
		return fmt.Errorf("%s: a second %s; the checks expect one", where, tm.Kind)
	}
	return decodeStrict(where, doc, obj)
}

// once returns fresh twice, or nil and have when have is already set.
func once[T any](where string, have, fresh *T) (any, *T) {
	if have != nil {
		return nil, have
	}
	return fresh, fresh
}

// decodeFile decodes a YAML file strictly into obj.
func decodeFile(file string, obj any) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return decodeStrict(file, b, obj)
}

// decodeStrict decodes YAML into obj, failing on unknown fields and
// duplicate keys: a misspelt field (readinesProbe) would otherwise be
// dropped without a word, by this test and by kubectl apply alike.
func decodeStrict(where string, doc []byte, obj any) error {
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// settings are what the manifests must agree with in a redirectd config.
type settings struct {
	Listen, AdminListen, Token string
	// TokenFile is [admin] token_file as written (the Secret's mount);
	// InlineToken is [admin] token as written, which must be empty.
	TokenFile, InlineToken string
	Shutdown               time.Duration
	CacheDir               string // [rules] cache_dir of the URL source; "" without one
}

// loadConfig writes the ConfigMap's config into dir and loads it with the
// project's own loader, then runs check's lint, as `redirectd check` does.
func loadConfig(dir string, cm *corev1.ConfigMap) (settings, error) {
	file, tokenFile, err := writeConfig(dir, cm)
	if err != nil {
		return settings{}, err
	}
	loose, err := looseConfig(cm)
	if err != nil {
		return settings{}, err
	}
	cfg, err := config.Load(file)
	if err != nil {
		return settings{}, err
	}
	for _, f := range lint.Check(cfg.Set.Rules(), cfg.Set) {
		if f.Severity == lint.Error {
			return settings{}, fmt.Errorf("redirectd check: %+v", f)
		}
	}
	return settings{Listen: cfg.Server.Listen, AdminListen: cfg.Admin.Listen, Token: cfg.Admin.Token,
		TokenFile: tokenFile, InlineToken: loose.InlineToken, Shutdown: cfg.Server.ShutdownTimeout.Std()}, nil
}

// placeholderToken stands for the Secret's token where a test loads the
// config outside a pod.
const placeholderToken = "token-of-the-secret"

// writeConfig writes the ConfigMap's config into dir. Its [admin]
// token_file, a Secret's file in the pod, is moved to a file in dir
// holding placeholderToken; tokenFile is the path as written.
func writeConfig(dir string, cm *corev1.ConfigMap) (file, tokenFile string, err error) {
	text, ok := cm.Data[configKey]
	if !ok {
		return "", "", fmt.Errorf("ConfigMap %s has no %s", cm.Name, configKey)
	}
	if loose, err := looseConfig(cm); err == nil && loose.TokenFile != "" {
		tokenFile = loose.TokenFile
		local := filepath.Join(dir, "admin-token")
		if err := os.WriteFile(local, []byte(placeholderToken+"\n"), 0o600); err != nil {
			return "", "", err
		}
		text = strings.Replace(text, strconv.Quote(tokenFile), strconv.Quote(local), 1)
	}
	file = filepath.Join(dir, configKey)
	return file, tokenFile, os.WriteFile(file, []byte(text), 0o644)
}

// sourceKeys are the [rules] keys of the URL source, which the
// loader may not know yet.
var sourceKeys = []string{"source", "poll", "cache_dir", "source_header", "source_header_file"}

// onlySourceKeysUnknown reports whether every error in err is the loader
// refusing one of sourceKeys as unknown.
func onlySourceKeysUnknown(err error) bool {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return false
	}
	for _, e := range j.Unwrap() {
		var ce *config.Error
		if !errors.As(e, &ce) || ce.What != "[rules]" || !slices.Contains(sourceKeys, ce.Key) || !strings.HasPrefix(ce.Msg, "unknown key") {
			return false
		}
	}
	return true
}

// looseConfig reads the settings of a config the loader cannot load yet
// (the URL source's keys), without the strict checks, with the loader's
// defaults.
func looseConfig(cm *corev1.ConfigMap) (settings, error) {
	var raw struct {
		Server struct {
			Listen          string `toml:"listen"`
			ShutdownTimeout string `toml:"shutdown_timeout"`
		} `toml:"server"`
		Admin struct {
			Listen    string `toml:"listen"`
			Token     string `toml:"token"`
			TokenFile string `toml:"token_file"`
		} `toml:"admin"`
		Rules struct {
			CacheDir string `toml:"cache_dir"`
		} `toml:"rules"`
	}
	if _, err := toml.Decode(cm.Data[configKey], &raw); err != nil {
		return settings{}, err
	}
	s := settings{Listen: raw.Server.Listen, AdminListen: raw.Admin.Listen, Token: raw.Admin.Token,
		TokenFile: raw.Admin.TokenFile, InlineToken: raw.Admin.Token,
		Shutdown: config.DefaultShutdownTimeout, CacheDir: raw.Rules.CacheDir}
	if s.TokenFile != "" {
		s.Token = placeholderToken // what loadConfig's copy of the file holds
	}
	if s.Listen == "" {
		s.Listen = config.DefaultListen
	}
	if s.AdminListen == "" {
		s.AdminListen = config.DefaultAdminListen
	}
	if raw.Server.ShutdownTimeout != "" {
		d, err := time.ParseDuration(raw.Server.ShutdownTimeout)
		if err != nil {
			return settings{}, fmt.Errorf("[server] shutdown_timeout: %w", err)
		}
		s.Shutdown = d
	}
	return s, nil
}

// port returns the port of a listen address.
func port(addr string) (int32, error) {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(p, 10, 16)
	return int32(n), err
}
