package kubernetes

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// imageRef is the image as the docs and the Containerfile write it.
var imageRef = regexp.MustCompile(`registry\.example/redirectd:([A-Za-z0-9_.-]+)`)

// imageFiles are the files outside base/ that may name the image's tag:
// the Containerfile's build comment and the docs that build and push it
// (those that do not exist are skipped; the first two must name it).
var imageFiles = []string{"Containerfile", "README.md", "../README.md", "../../README.md"}

// TestImageTag: the Deployment runs the image tag that the Containerfile
// and the docs build and push, one tag everywhere, and its pull policy
// fits the tag: a fixed tag with IfNotPresent, never :latest (which a
// node that pulled it once would keep serving, build after build).
func TestImageTag(t *testing.T) {
	fs, err := readFiles(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range imageProblems(t, fs) {
		t.Error(p)
	}
}

// TestImageTagCatchesDrift: a tag changed in the Deployment alone, or a
// pull policy that does not fit the tag, is named.
func TestImageTagCatchesDrift(t *testing.T) {
	base, err := readFiles(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		e    edit
		want string
	}{
		{"latest", edit{"deployment.yaml", "redirectd:v1", "redirectd:latest"}, "latest"},
		{"another tag", edit{"deployment.yaml", "redirectd:v1", "redirectd:v2"}, "v2"},
		{"always pulled", edit{"deployment.yaml", "imagePullPolicy: IfNotPresent", "imagePullPolicy: Always"}, "imagePullPolicy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := imageProblems(t, base.with(t, tc.e))
			if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), tc.want) {
				t.Errorf("problems %q, want one naming %q", got, tc.want)
			}
		})
	}
}

// imageProblems lists where the Deployment's image and the files that
// build it disagree.
func imageProblems(t *testing.T, fs files) []string {
	t.Helper()
	m, err := fs.decode()
	if err != nil {
		t.Fatal(err)
	}
	cs := m.Deployment.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", len(cs))
	}
	c := cs[0]
	var problems []string
	sub := imageRef.FindStringSubmatch(c.Image)
	if sub == nil || sub[0] != c.Image {
		return []string{"deployment.yaml: image " + c.Image + " is not registry.example/redirectd:TAG"}
	}
	tag := sub[1]
	if tag == "latest" {
		problems = append(problems, "deployment.yaml: image tag latest: give the tag the Containerfile's README builds")
	}
	if c.ImagePullPolicy != corev1.PullIfNotPresent {
		problems = append(problems, "deployment.yaml: imagePullPolicy "+string(c.ImagePullPolicy)+": a fixed tag names one build, so IfNotPresent")
	}
	found := map[string][]string{}
	for _, name := range imageFiles {
		b, err := os.ReadFile(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range imageRef.FindAllStringSubmatch(string(b), -1) {
			found[filepath.Clean(name)] = append(found[filepath.Clean(name)], s[1])
		}
	}
	if len(found["Containerfile"]) == 0 || len(found["README.md"]) == 0 {
		t.Fatalf("the Containerfile and README.md should each name the tag they build: %v", found)
	}
	for _, name := range imageFiles {
		for _, got := range found[filepath.Clean(name)] {
			if got != tag {
				problems = append(problems, name+": builds registry.example/redirectd:"+got+", the Deployment runs :"+tag)
			}
		}
	}
	return problems
}
