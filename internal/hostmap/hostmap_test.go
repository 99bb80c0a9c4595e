package hostmap

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// covering lists, longest first, the values whose patterns cover name.
func covering(m *Map[string], name string) []string {
	var out []string
	if v, ok := m.Exact([]byte(name)); ok {
		out = append(out, v)
	}
	for i := 0; ; {
		v, next, ok := m.Wild([]byte(name), i)
		if !ok {
			break
		}
		out = append(out, v)
		i = next
	}
	var str []string
	if v, ok := m.ExactString(name); ok {
		str = append(str, v)
	}
	for i := 0; ; {
		v, next, ok := m.WildString(name, i)
		if !ok {
			break
		}
		str = append(str, v)
		i = next
	}
	if !cmp.Equal(out, str) {
		panic("Wild and WildString differ for " + name)
	}
	return out
}

func TestMap(t *testing.T) {
	var anyDepth, one Map[string]
	one.OneLabel()
	for _, p := range []string{"example.com", "*.example.com", "*.b.example.com", "a.b.example.com"} {
		anyDepth.Put(p, p)
		one.Put(p, p)
	}
	for _, tc := range []struct {
		name      string
		any, oneL []string
	}{
		{"example.com", []string{"example.com"}, []string{"example.com"}},
		{"a.example.com", []string{"*.example.com"}, []string{"*.example.com"}},
		{"a.b.example.com", []string{"a.b.example.com", "*.b.example.com", "*.example.com"}, []string{"a.b.example.com", "*.b.example.com"}},
		{"x.y.example.com", []string{"*.example.com"}, nil},
		{"other.org", nil, nil},
		{".example.com", []string{"*.example.com"}, nil}, // an empty label: only any-depth tables ever took it
		{"", nil, nil},
	} {
		if d := cmp.Diff(tc.any, covering(&anyDepth, tc.name)); d != "" {
			t.Errorf("any depth, %q (-want +got):\n%s", tc.name, d)
		}
		if d := cmp.Diff(tc.oneL, covering(&one, tc.name)); d != "" {
			t.Errorf("one label, %q (-want +got):\n%s", tc.name, d)
		}
	}
	if v, ok := anyDepth.Get("*.b.example.com"); !ok || v != "*.b.example.com" {
		t.Errorf("Get of a wildcard: %q %v", v, ok)
	}
	if _, ok := anyDepth.Get("b.example.com"); ok {
		t.Error("Get found a name only a wildcard covers")
	}
	if anyDepth.NameCount() != 2 || !anyDepth.HasWild() || anyDepth.Empty() {
		t.Errorf("counts: %d names, wild %v, empty %v", anyDepth.NameCount(), anyDepth.HasWild(), anyDepth.Empty())
	}
	var empty Map[int]
	if !empty.Empty() || empty.HasWild() {
		t.Error("the zero Map is not empty")
	}
	if _, _, ok := empty.Wild([]byte("a.b"), 0); ok {
		t.Error("the zero Map covers a name")
	}
}

func TestExample(t *testing.T) {
	for in, want := range map[string]string{"*.example.com": "www.example.com", "example.com": "example.com", "": ""} {
		if got := Example(in); got != want {
			t.Errorf("Example(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLookupAllocs: lookups run on the serving path for every request.
func TestLookupAllocs(t *testing.T) {
	var m Map[*int]
	n := 1
	m.Put("*.example.com", &n)
	m.Put("www.example.com", &n)
	name := []byte("a.b.example.com")
	str := "a.b.example.com"
	if a := testing.AllocsPerRun(100, func() {
		m.Exact(name)
		m.ExactString(str)
		for i := 0; ; {
			_, next, ok := m.Wild(name, i)
			if !ok {
				break
			}
			i = next
		}
		m.WildString(str, 0)
	}); a != 0 {
		t.Errorf("a lookup allocates %v times", a)
	}
}
