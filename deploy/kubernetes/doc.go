// Package kubernetes holds redirectd's Kubernetes manifests and no code:
// its test decodes each manifest strictly into the Kubernetes API types and
// checks that ports, probes, the drain and the selectors agree with the
// redirectd config the ConfigMap mounts. See README.md in this folder.
package kubernetes
