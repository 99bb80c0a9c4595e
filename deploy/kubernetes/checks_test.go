package kubernetes

import (
	"fmt"
	"net"
	"net/netip"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Paths of redirectd's admin endpoints (engine/admin/routes.go) that the
// probes use; TestManifestsServe asks the real server for them.
const (
	readyPath  = "/readyz"
	healthPath = "/healthz"
)

// check returns every way m disagrees with the redirectd config s, or with
// itself. Each problem names the two places that disagree.
func (m *manifests) check(s settings) []string {
	var p problems
	pod := &m.Deployment.Spec.Template.Spec
	c := m.container(&p)
	if c == nil {
		return p
	}
	p.checkConfigMount(m, c)
	httpPort, adminPort := p.listenPort("[server] listen", s.Listen), p.listenPort("[admin] listen", s.AdminListen)
	p.checkPorts(c, httpPort, adminPort, s)
	p.checkProbes(c, adminPort)
	p.checkToken(m, c, s)
	p.checkService(m, c, httpPort)
	p.checkDrain(pod, c, s)
	p.checkSelectors(m)
	p.checkScaling(m, c)
	p.checkSecurity(pod, c, s)
	return p
}

type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// container returns the Deployment's one container.
func (m *manifests) container(p *problems) *corev1.Container {
	cs := m.Deployment.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		p.add("the Deployment has %d containers; the checks expect one, redirectd", len(cs))
		return nil
	}
	return &cs[0]
}

// checkConfigMount checks that the container reads the ConfigMap's config:
// its -config argument is the ConfigMap key where the volume is mounted.
func (p *problems) checkConfigMount(m *manifests, c *corev1.Container) {
	i := slices.Index(c.Args, "-config")
	if i < 0 || i+1 >= len(c.Args) {
		p.add("container args %q have no -config FILE", c.Args)
		return
	}
	file := c.Args[i+1]
	for _, vm := range c.VolumeMounts {
		v := volume(m.Deployment.Spec.Template.Spec.Volumes, vm.Name)
		if v == nil || v.ConfigMap == nil || v.ConfigMap.Name != m.ConfigMap.Name {
			continue
		}
		if path.Join(vm.MountPath, configKey) == file {
			return
		}
	}
	p.add("-config %s is not %s of ConfigMap %s mounted in the container", file, configKey, m.ConfigMap.Name)
}

func volume(vs []corev1.Volume, name string) *corev1.Volume {
	for i := range vs {
		if vs[i].Name == name {
			return &vs[i]
		}
	}
	return nil
}

// listenPort returns the port of a listen address, or 0 with a problem.
func (p *problems) listenPort(key, addr string) int32 {
	n, err := port(addr)
	if err != nil || n == 0 {
		p.add("%s %q has no port the manifests can use (%v)", key, addr, err)
		return 0
	}
	return n
}

// checkPorts checks the container ports named http and admin against the
// config's listen ports, and that the admin port listens where the kubelet
// probes: the pod's address, not loopback.
func (p *problems) checkPorts(c *corev1.Container, httpPort, adminPort int32, s settings) {
	for _, want := range []struct {
		name, key string
		port      int32
	}{{"http", "[server] listen", httpPort}, {"admin", "[admin] listen", adminPort}} {
		got, ok := containerPort(c, intstr.FromString(want.name))
		switch {
		case !ok:
			p.add("the container has no port named %q", want.name)
		case got != want.port:
			p.add("container port %q is %d but the config's %s is port %d", want.name, got, want.key, want.port)
		}
	}
	if host, _, err := net.SplitHostPort(s.AdminListen); err == nil {
		if a, err := netip.ParseAddr(host); host == "localhost" || err == nil && a.Unmap().IsLoopback() {
			p.add("[admin] listen %q is loopback: the kubelet probes the pod's address and cannot reach it", s.AdminListen)
		}
	}
}

// containerPort resolves a port by name or number among c's ports.
func containerPort(c *corev1.Container, port intstr.IntOrString) (int32, bool) {
	for _, cp := range c.Ports {
		if port.Type == intstr.String && cp.Name == port.StrVal || port.Type == intstr.Int && cp.ContainerPort == port.IntVal {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}

// checkProbes checks that readiness asks /readyz and liveness and startup
// /healthz on the admin port, and that none sends a token: the probes
// need none, and one written in a probe is in plain text.
func (p *problems) checkProbes(c *corev1.Container, adminPort int32) {
	for _, pr := range []struct {
		what, path string
		probe      *corev1.Probe
	}{
		{"readinessProbe", readyPath, c.ReadinessProbe},
		{"livenessProbe", healthPath, c.LivenessProbe},
		{"startupProbe", healthPath, c.StartupProbe},
	} {
		if pr.probe == nil || pr.probe.HTTPGet == nil {
			p.add("%s is not an httpGet probe", pr.what)
			continue
		}
		g := pr.probe.HTTPGet
		if g.Path != pr.path {
			p.add("%s asks %q; redirectd's admin port serves %s", pr.what, g.Path, pr.path)
		}
		if g.Scheme != "" && g.Scheme != corev1.URISchemeHTTP || g.Host != "" {
			p.add("%s must be plain HTTP to the pod (scheme %q, host %q)", pr.what, g.Scheme, g.Host)
		}
		if got, ok := containerPort(c, g.Port); !ok || got != adminPort {
			p.add("%s probes port %s (%d) but the config's [admin] listen is port %d", pr.what, g.Port.String(), got, adminPort)
		}
		for _, h := range g.HTTPHeaders {
			if strings.EqualFold(h.Name, "Authorization") {
				p.add("%s sends an Authorization header: the probes need no token, and one written in the Deployment is in plain text", pr.what)
			}
		}
	}
}

// checkToken checks that the admin token is not in the ConfigMap and
// comes from a Secret: [admin] token_file is a key of a Secret mounted in
// the container.
func (p *problems) checkToken(m *manifests, c *corev1.Container, s settings) {
	if s.InlineToken != "" {
		p.add("the ConfigMap's config holds [admin] token in plain text (anyone who may read ConfigMaps reads it): set token_file to a key of a Secret mounted in the container")
	}
	if s.TokenFile == "" {
		return
	}
	if _, _, ok := tokenSecret(m, c, s.TokenFile); !ok {
		p.add("[admin] token_file %s is not a key of a Secret mounted in the container", s.TokenFile)
	}
	for _, e := range c.Env {
		if e.Value != "" && s.Token != "" && strings.Contains(e.Value, s.Token) {
			p.add("env %s holds the admin token in plain text", e.Name)
		}
	}
}

// tokenSecret returns the Secret and key whose mounted file is file.
func tokenSecret(m *manifests, c *corev1.Container, file string) (name, key string, ok bool) {
	for _, vm := range c.VolumeMounts {
		v := volume(m.Deployment.Spec.Template.Spec.Volumes, vm.Name)
		if v == nil || v.Secret == nil {
			continue
		}
		for _, it := range v.Secret.Items {
			if path.Join(vm.MountPath, it.Path) == file {
				return v.Secret.SecretName, it.Key, true
			}
		}
		if len(v.Secret.Items) == 0 && path.Dir(file) == path.Clean(vm.MountPath) {
			return v.Secret.SecretName, path.Base(file), true
		}
	}
	return "", "", false
}

// checkService checks that every Service port leads to the traffic port.
func (p *problems) checkService(m *manifests, c *corev1.Container, httpPort int32) {
	if len(m.Service.Spec.Ports) == 0 {
		p.add("the Service has no ports")
	}
	for _, sp := range m.Service.Spec.Ports {
		target := sp.TargetPort
		if target.Type == intstr.Int && target.IntVal == 0 {
			target = intstr.FromInt32(sp.Port) // Kubernetes' default
		}
		if got, ok := containerPort(c, target); !ok || got != httpPort {
			p.add("Service port %d targets %s, which is container port %d, not the config's [server] listen port %d", sp.Port, target.String(), got, httpPort)
		}
	}
}

// checkDrain checks that the grace period covers the preStop wait and the
// drain: Kubernetes counts it from the start of preStop and then kills.
func (p *problems) checkDrain(pod *corev1.PodSpec, c *corev1.Container, s settings) {
	var wait int64
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
		p.add("no preStop sleep: the Service may still send connections after SIGTERM closed the listeners")
	} else {
		wait = c.Lifecycle.PreStop.Sleep.Seconds
	}
	grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if pod.TerminationGracePeriodSeconds != nil {
		grace = *pod.TerminationGracePeriodSeconds
	}
	// Whole seconds: shutdown_timeout rounded up.
	drain := int64((s.Shutdown + 999_999_999) / 1_000_000_000)
	if grace <= wait+drain {
		p.add("terminationGracePeriodSeconds %d does not exceed the preStop sleep (%d s) plus [server] shutdown_timeout (%s)", grace, wait, s.Shutdown)
	}
}

// checkSelectors checks that the Service, the PodDisruptionBudget, the
// spread constraints and the Deployment's own selector select its pods,
// and that the HPA scales this Deployment.
func (p *problems) checkSelectors(m *manifests) {
	pods := labels.Set(m.Deployment.Spec.Template.Labels)
	selects := func(what string, ls *metav1.LabelSelector) {
		sel, err := metav1.LabelSelectorAsSelector(ls)
		switch {
		case err != nil:
			p.add("%s selector: %v", what, err)
		case ls == nil || sel.Empty():
			p.add("%s has no selector", what)
		case !sel.Matches(pods):
			p.add("%s selector %s does not match the Deployment's pod labels %s", what, sel, pods)
		}
	}
	selects("the Deployment", m.Deployment.Spec.Selector)
	selects("the PodDisruptionBudget", m.PDB.Spec.Selector)
	for _, tc := range m.Deployment.Spec.Template.Spec.TopologySpreadConstraints {
		selects("topologySpreadConstraint "+tc.TopologyKey, tc.LabelSelector)
	}
	svc := m.Service.Spec.Selector
	if len(svc) == 0 || !labels.SelectorFromSet(svc).Matches(pods) {
		p.add("the Service selector %v does not match the Deployment's pod labels %s", svc, pods)
	}
	ref := m.HPA.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != m.Deployment.Name {
		p.add("the HPA scales %s %s/%s, not Deployment %s", ref.APIVersion, ref.Kind, ref.Name, m.Deployment.Name)
	}
}

// checkScaling checks that the HPA scales on CPU, which needs a CPU
// request to measure utilization against, and that the Deployment leaves
// the replica count to it.
func (p *problems) checkScaling(m *manifests, c *corev1.Container) {
	cpu := false
	for _, ms := range m.HPA.Spec.Metrics {
		cpu = cpu || ms.Resource != nil && ms.Resource.Name == corev1.ResourceCPU
	}
	if !cpu {
		p.add("the HPA has no CPU resource metric")
	}
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		p.add("the container has no CPU request: the HPA's utilization target is a share of it")
	}
	if m.Deployment.Spec.Replicas != nil {
		p.add("the Deployment sets replicas: kubectl apply would reset what the HPA chose")
	}
	if min := m.HPA.Spec.MinReplicas; min == nil || *min < 2 {
		p.add("the HPA's minReplicas is below 2: with maxUnavailable 1 the PodDisruptionBudget would allow no pod serving")
	}
}

// checkSecurity checks the non-root, read-only security context, that a
// non-root process can bind the ports, and that cache_dir is writable.
func (p *problems) checkSecurity(pod *corev1.PodSpec, c *corev1.Container, s settings) {
	sc := c.SecurityContext
	if sc == nil {
		p.add("the container has no securityContext")
		return
	}
	nonRoot := sc.RunAsNonRoot
	if nonRoot == nil && pod.SecurityContext != nil {
		nonRoot = pod.SecurityContext.RunAsNonRoot
	}
	if nonRoot == nil || !*nonRoot {
		p.add("runAsNonRoot is not true")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		p.add("readOnlyRootFilesystem is not true")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		p.add("allowPrivilegeEscalation is not false")
	}
	if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
		p.add("capabilities must drop ALL and add none")
	}
	for _, cp := range c.Ports {
		if cp.ContainerPort < 1024 {
			p.add("container port %d is below 1024: a non-root process without NET_BIND_SERVICE cannot bind it", cp.ContainerPort)
		}
	}
	if s.CacheDir != "" && !writable(pod, c, s.CacheDir) {
		p.add("[rules] cache_dir %s is not on a writable emptyDir or persistent volume: the root filesystem is read-only", s.CacheDir)
	}
}

// writable reports whether dir lies on a mount c can write to.
func writable(pod *corev1.PodSpec, c *corev1.Container, dir string) bool {
	for _, vm := range c.VolumeMounts {
		v := volume(pod.Volumes, vm.Name)
		if vm.ReadOnly || v == nil || v.EmptyDir == nil && v.PersistentVolumeClaim == nil {
			continue
		}
		if dir == vm.MountPath || strings.HasPrefix(dir, strings.TrimSuffix(vm.MountPath, "/")+"/") {
			return true
		}
	}
	return false
}
