package admin

import (
	"errors"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr error // nil: New succeeds
	}{
		{"default", Options{}, nil},
		{"ipv4 loopback", Options{Listen: "127.0.0.1:9180"}, nil},
		{"ipv4 loopback range", Options{Listen: "127.1.2.3:9180"}, nil},
		{"ipv6 loopback", Options{Listen: "[::1]:9180"}, nil},
		{"ipv4-mapped loopback", Options{Listen: "[::ffff:127.0.0.1]:9180"}, nil},
		{"localhost", Options{Listen: "localhost:9180"}, nil},
		{"LOCALHOST", Options{Listen: "LOCALHOST:9180"}, nil},
		{"any ipv4", Options{Listen: "0.0.0.0:9180"}, ErrTokenRequired},
		{"empty host", Options{Listen: ":9180"}, ErrTokenRequired},
		{"any ipv6", Options{Listen: "[::]:9180"}, ErrTokenRequired},
		{"public address", Options{Listen: "192.0.2.1:9180"}, ErrTokenRequired},
		{"host name", Options{Listen: "admin.example.com:9180"}, ErrTokenRequired},
		{"zoned ipv6 loopback", Options{Listen: "[::1%lo]:9180"}, nil},
		{"any ipv4 with token", Options{Listen: "0.0.0.0:9180", Token: "t0ken"}, nil},
		{"empty host with token", Options{Listen: ":9180", Token: "t0ken"}, nil},
		{"public address with token", Options{Listen: "192.0.2.1:9180", Token: "t0ken"}, nil},
		{"loopback with token", Options{Listen: "127.0.0.1:9180", Token: "abc.DEF-_~+/=="}, nil},
		{"token with space", Options{Token: "two words"}, ErrBadToken},
		{"token with newline", Options{Token: "t0ken\n"}, ErrBadToken},
		{"token with inner =", Options{Token: "a=b"}, ErrBadToken},
		{"token only =", Options{Token: "=="}, ErrBadToken},
		{"token not ascii", Options{Token: "t\xc3\xb6ken"}, ErrBadToken},
		{"no port", Options{Listen: "127.0.0.1"}, ErrBadListen},
		{"garbage", Options{Listen: "[::1:9180"}, ErrBadListen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.opts, newFake())
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("New(%+v) error = %v, want %v", tt.opts, err, tt.wantErr)
			}
			if err == nil && s == nil {
				t.Fatal("New returned nil server and nil error")
			}
		})
	}
}

// TestNewTokenRequiredMessage pins the advice in the error: it is what an
// operator reads in the log when the admin server will not start.
func TestNewTokenRequiredMessage(t *testing.T) {
	_, err := New(Options{Listen: "0.0.0.0:9180"}, newFake())
	if err == nil {
		t.Fatal("New: no error")
	}
	for _, want := range []string{"set [admin] token", "listen on 127.0.0.1", `"0.0.0.0:9180"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestNewNilBackend(t *testing.T) {
	if _, err := New(Options{}, nil); !errors.Is(err, errNilBackend) {
		t.Errorf("New(nil backend) = %v, want %v", err, errNilBackend)
	}
}
