package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config"
)

// TestAccessLogFormat checks that a layout of nginx $variables is compiled
// at load: a known one loads, an unknown variable or a stray escape is an
// error naming the file, the line and the key.
func TestAccessLogFormat(t *testing.T) {
	for _, tt := range []struct{ name, table, want string }{
		{"layout", `format = '$remote_addr $host "$request" $status $body_bytes_sent $http_x_request_id'`, ""},
		{"layout, escape json", "format = '{\"h\":\"$host\"}'\nescape = \"json\"", ""},
		{"unknown variable", `format = '$remote_addr $hots'`, `redirectd.toml:3: [access_log]: format: byte 14 of the format: unknown variable $hots; known: $args,`},
		{"not a format", `format = "common"`, `redirectd.toml:3: [access_log]: format: "common" is not a format; use "combined", "json" or a layout of nginx log_format $variables`},
		{"escape of a built-in", "format = \"json\"\nescape = \"json\"", `redirectd.toml:4: [access_log]: escape: escape "json" applies only to a format of $variables`},
		{"unknown escape", "format = '$status'\nescape = \"none\"", `redirectd.toml:4: [access_log]: escape: escape "none"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": "\n[access_log]\n" + tt.table + "\n"})
			_, err := config.Load(file)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			msg := ""
			if err != nil {
				msg = strings.ReplaceAll(err.Error(), filepath.Dir(file)+string(filepath.Separator), "")
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q\nwant one holding %q", msg, tt.want)
			}
		})
	}
}

// TestAccessLogPathFromConfig: a relative [access_log] path is read from
// the config's folder, as maps and cache_dir are, whatever the folder
// the service runs in; "-" and an absolute path stay.
func TestAccessLogPathFromConfig(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"logs/access.log", "DIR/logs/access.log"},
		{"-", "-"},
		{"/var/log/redirectd/access.log", "/var/log/redirectd/access.log"},
	} {
		file := writeFiles(t, map[string]string{"redirectd.toml": "[access_log]\npath = \"" + tt.path + "\"\n"})
		cfg, err := config.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Replace(cfg.AccessLog.Path, filepath.Dir(file), "DIR", 1); got != tt.want {
			t.Errorf("path %q is read as %q, want %q", tt.path, got, tt.want)
		}
	}
}
