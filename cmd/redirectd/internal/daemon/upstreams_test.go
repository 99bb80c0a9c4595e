package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/config"
)

// TestUpstreamsBuild: a reload keeps the pool of a group whose table did
// not change and makes a new one for a changed group; the routes point at
// the groups they name.
func TestUpstreamsBuild(t *testing.T) {
	dir := t.TempDir()
	load := func(blogServer string) *config.Config {
		file := filepath.Join(dir, "r.toml")
		src := "[upstream]\nservers = [\"127.0.0.1:1\"]\n\n[upstreams.blog]\nservers = [\"" + blogServer + "\"]\n\n" +
			"[[route]]\nprefix = \"/blog/\"\nupstream = \"blog\"\n"
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	ups := &upstreams{}
	defer ups.close()
	fw, commit, err := ups.build(load("127.0.0.1:2"))
	if err != nil {
		t.Fatal(err)
	}
	commit()
	def, blog := ups.running["default"], ups.running["blog"]
	if fw.def != def.opts || len(fw.routes) != 1 || fw.routes[0].Group != blog.opts || fw.routes[0].Prefix != "/blog/" {
		t.Fatalf("forwarding = %+v", fw)
	}
	fw, commit, err = ups.build(load("127.0.0.1:3"))
	if err != nil {
		t.Fatal(err)
	}
	commit()
	if ups.running["default"] != def {
		t.Error("the unchanged default group got a new pool")
	}
	if nb := ups.running["blog"]; nb == blog || nb.pool.Servers()[0].Addr != "127.0.0.1:3" || fw.routes[0].Group != nb.opts {
		t.Errorf("the changed group kept its pool, or the route its old group: %+v", nb)
	}
}
