package source

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/redirectd/redirectd/internal/plural"
	"github.com/redirectd/redirectd/internal/shorten"
)

// Limits bound what an archive may unpack to: a small .tar.gz can hold
// gigabytes of zeros.
type Limits struct {
	// Files is the most entries (files and folders) an archive may hold.
	Files int
	// Bytes is the most the files may hold in all.
	Bytes int64
}

// DefaultLimits fit a million-rule map (about 50 MiB) many times over.
var DefaultLimits = Limits{Files: 10000, Bytes: 2 << 30}

// Extract unpacks the tar archive read from r, gzip-compressed or not,
// into dir, which must exist. Only regular files and folders are
// written, each at a local path under dir: an absolute name, a ".."
// element, a link (symbolic or hard), a device or a FIFO is an error that
// names the entry, and writes go through an os.Root, which also refuses
// to follow a link out of dir. Files are written 0644 and folders 0755
// whatever the archive says, and synced before Extract returns. On error
// dir may hold part of the archive: the caller removes it.
func Extract(r io.Reader, dir string, lim Limits) error {
	br := bufio.NewReader(r)
	var tr *tar.Reader
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fail(ReasonArchive, "cannot read the archive's gzip header: %v", err)
		}
		zr.Multistream(false)
		tr = tar.NewReader(zr)
	} else {
		tr = tar.NewReader(br)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", dir, err)
	}
	defer root.Close()
	x := extractor{root: root, lim: lim}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(ReasonArchive, "cannot read the archive after %s: %v", plural.Count(x.n, "entry", "entries"), err)
		}
		if err := x.entry(h, tr); err != nil {
			return err
		}
	}
	if x.n == 0 {
		return fail(ReasonArchive, "the archive is empty")
	}
	return syncTree(dir)
}

type extractor struct {
	root  *os.Root
	lim   Limits
	n     int   // entries written
	bytes int64 // bytes written
}

func (x *extractor) entry(h *tar.Header, r io.Reader) error {
	switch h.Typeflag {
	case tar.TypeXGlobalHeader, tar.TypeXHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
		return nil // metadata for the entries that follow, read by archive/tar
	}
	name, err := localName(h.Name)
	if err != nil {
		return err
	}
	if x.n++; x.n > x.lim.Files {
		return fail(ReasonTooLarge, "the archive holds more than %d entries; split the rule set into fewer, larger files", x.lim.Files)
	}
	switch h.Typeflag {
	case tar.TypeDir:
		if name == "." {
			return nil
		}
		if err := x.root.MkdirAll(name, 0o755); err != nil {
			return fail(ReasonArchive, "cannot make folder %q of the archive: %v", name, err)
		}
		return nil
	case tar.TypeReg: // tar.Reader turns the legacy TypeRegA into TypeReg (or TypeDir)
		return x.file(name, h, r)
	case tar.TypeSymlink, tar.TypeLink:
		return fail(ReasonArchive, "the archive's entry %q is a link (to %q); only regular files and folders are allowed: archive the files themselves (tar --dereference)", name, cutName(h.Linkname))
	}
	return fail(ReasonArchive, "the archive's entry %q is of type %q; only regular files and folders are allowed", name, h.Typeflag)
}

func (x *extractor) file(name string, h *tar.Header, r io.Reader) error {
	if name == "." {
		return fail(ReasonArchive, "the archive holds a file with no name")
	}
	if h.Size > x.lim.Bytes-x.bytes {
		return fail(ReasonTooLarge, "the archive unpacks to more than %d bytes (at %q)", x.lim.Bytes, name)
	}
	if dir := path.Dir(name); dir != "." {
		if err := x.root.MkdirAll(dir, 0o755); err != nil {
			return fail(ReasonArchive, "cannot make folder %q of the archive: %v", dir, err)
		}
	}
	// O_EXCL: a name twice in the archive (tar appends rather than
	// replaces) would otherwise let the later entry win unnoticed.
	f, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fail(ReasonArchive, "the archive holds %q twice", name)
		}
		return fail(ReasonArchive, "cannot write %q of the archive: %v", name, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, h.Size))
	x.bytes += n
	if err == nil && n < h.Size {
		err = io.ErrUnexpectedEOF
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(ReasonArchive, "cannot unpack %q: %v", name, err)
	}
	return nil
}

// localName returns the entry name cleaned ("./a//b" is "a/b", "./" is
// "."), or an error for a name that would leave the destination or cannot
// be a file name.
func localName(name string) (string, error) {
	if name == "" || strings.IndexByte(name, 0) >= 0 || strings.IndexByte(name, '\\') >= 0 {
		return "", fail(ReasonArchive, "the archive's entry name %q is not a plain relative path", cutName(name))
	}
	if strings.HasPrefix(name, "/") {
		return "", fail(ReasonArchive, "the archive's entry %q has an absolute path; archive paths relative to the rule set's folder (tar -C DIR -czf site.tar.gz .)", cutName(name))
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return "", fail(ReasonArchive, "the archive's entry %q climbs out of its folder with \"..\"; this is refused", cutName(name))
		}
	}
	return path.Clean(name), nil
}

func cutName(s string) string { return shorten.Text(s, 100) }
