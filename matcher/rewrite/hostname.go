package rewrite

import (
	"fmt"
	"strings"
)

// hostTable holds the wildcard names of a hostnames map (and of
// server_name): "*.example.com" and ".example.com" by their suffix from
// the dot, "www.example.*" by its prefix to the dot. ".example.com" also
// names example.com itself, which the caller files as an exact name.
type hostTable struct {
	head map[string]int32
	tail map[string]int32
}

// add files name (lower case) when it is a wildcard, reporting whether
// it was one; for ".example.com" it reports false after filing the
// wildcard half, and the caller files "example.com." trimmed as exact.
func (h *hostTable) add(name string, v int32) (wild bool, err error) {
	switch {
	case strings.HasPrefix(name, "*."):
		return true, h.put(&h.head, name[1:], v)
	case strings.HasPrefix(name, "."):
		return false, h.put(&h.head, name, v)
	case strings.HasSuffix(name, ".*"):
		return true, h.put(&h.tail, name[:len(name)-1], v)
	case strings.Contains(name, "*"):
		return false, fmt.Errorf("invalid wildcard: '*' only as the first or the last label")
	}
	return false, nil
}

func (h *hostTable) put(m *map[string]int32, key string, v int32) error {
	if len(key) < 2 {
		return fmt.Errorf("invalid wildcard")
	}
	if *m == nil {
		*m = map[string]int32{}
	}
	if _, dup := (*m)[key]; dup {
		return fmt.Errorf("duplicate wildcard")
	}
	(*m)[key] = v
	return nil
}

// find returns the value of the most specific wildcard matching host,
// leading ones first, as ngx_hash_find_combined after its exact hash.
func (h *hostTable) find(host []byte) (int32, bool) {
	if h == nil {
		return 0, false
	}
	if h.head != nil {
		for i := 1; i < len(host); i++ {
			if host[i] == '.' {
				if v, ok := h.head[string(host[i:])]; ok {
					return v, true
				}
			}
		}
	}
	if h.tail != nil {
		for i := len(host) - 2; i > 0; i-- {
			if host[i] == '.' {
				if v, ok := h.tail[string(host[:i+1])]; ok {
					return v, true
				}
			}
		}
	}
	return 0, false
}
