package apache

// RewriteMap's dbm: files, read without cgo: SDBM (APR's own format, a
// .pag file of 1024-byte pages) and Berkeley DB's hash format (Debian's
// default DBM type, which httxt2dbm writes), whose pages list their
// items; GDBM's and NDBM's formats are not read.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
)

// readDBM returns the pairs of the dbm: map file (dbm=TYPE:file): for
// SDBM, file.pag; else the file itself, its format read from its magic
// number (Apache's default type is the APR build's, Debian's Berkeley
// DB, upstream's SDBM).
func readDBM(typ, file string) ([][2]string, error) {
	typ = strings.ToLower(typ)
	switch typ {
	case "sdbm":
		return readSDBM(file + ".pag")
	case "", "default", "db":
	case "gdbm", "ndbm":
		return nil, fmt.Errorf("a %s file, whose format the import does not read (convert it with httxt2dbm -f SDBM, or keep the text as a txt: map)", strings.ToUpper(typ))
	default:
		return nil, fmt.Errorf("dbm=%s is not a DBM type Apache knows", typ)
	}
	data, err := readLimited(file)
	if errors.Is(err, os.ErrNotExist) && typ != "db" {
		return readSDBM(file + ".pag")
	}
	if err != nil {
		return nil, err
	}
	if len(data) >= 4 {
		switch binary.LittleEndian.Uint32(data) {
		case 0x13579ace, 0x13579acd, 0x13579acf, 0xce9a5713, 0xcd9a5713, 0xcf9a5713:
			return nil, errors.New("a GDBM file, whose format the import does not read (convert it with httxt2dbm -f SDBM, or keep the text as a txt: map)")
		}
	}
	return readBDBHash(data)
}

// readLimited reads a map file of at most maxMapBytes.
func readLimited(file string) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read: %w", file, err)
	}
	if st.Size() > maxMapBytes {
		return nil, fmt.Errorf("%s is over 256 MiB", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read", file)
	}
	return data, nil
}

// sdbmPage is APR's SDBM page size (PBLKSIZ).
const sdbmPage = 1024

// readSDBM reads every pair of an SDBM .pag file: each page starts with
// n and n offsets (shorts, little-endian as amd64 writes them), its
// pairs laid from the page's end down, key then value (sdbm_pair.c).
func readSDBM(file string) ([][2]string, error) {
	data, err := readLimited(file)
	if err != nil {
		return nil, err
	}
	return sdbmPairs(file, data)
}

// sdbmPairs reads the pairs of an SDBM .pag file's bytes.
func sdbmPairs(file string, data []byte) ([][2]string, error) {
	var out [][2]string
	for p := 0; p+sdbmPage <= len(data); p += sdbmPage {
		page := data[p : p+sdbmPage]
		short := func(i int) int { return int(binary.LittleEndian.Uint16(page[2*i:])) }
		n := short(0)
		if n%2 != 0 || 2*(n+1) > sdbmPage {
			return nil, fmt.Errorf("%s is not an SDBM file (page at %d)", file, p)
		}
		off := sdbmPage
		for i := 1; i < n; i += 2 {
			k, v := short(i), short(i+1)
			if !(v <= k && k <= off && v >= 2*(n+1)) {
				return nil, fmt.Errorf("%s is not an SDBM file (page at %d)", file, p)
			}
			out = append(out, [2]string{string(page[k:off]), string(page[v:k])})
			off = v
		}
	}
	return out, nil
}

// Berkeley DB's hash format (db_page.h, hash.h).
const (
	bdbHashMagic  = 0x061561
	bdbPageHeader = 26 // lsn, pgno, prev, next, entries, hf_offset, level, type
	bdbHashSorted = 13 // P_HASH
	bdbHashOld    = 2  // P_HASH_UNSORTED
	bdbKeyData    = 1  // H_KEYDATA: the item's bytes follow its type
)

// readBDBHash reads every pair of a Berkeley DB hash file: each hash
// page's items alternate key and value, each a type byte and its bytes,
// an item's length the distance to the one before it (LEN_HITEM). An
// item on overflow pages (a value over a quarter page) is not read.
func readBDBHash(data []byte) ([][2]string, error) {
	if len(data) < 512 {
		return nil, errors.New("neither a Berkeley DB nor an SDBM file")
	}
	var order binary.ByteOrder = binary.LittleEndian
	if order.Uint32(data[12:]) != bdbHashMagic {
		order = binary.BigEndian
		if order.Uint32(data[12:]) != bdbHashMagic {
			return nil, errors.New("not a Berkeley DB hash file (nor GDBM; an SDBM map is named as dbm=sdbm:FILE, without .pag)")
		}
	}
	size := int(order.Uint32(data[20:]))
	if data[24] != 0 || data[26]&1 != 0 {
		return nil, errors.New("an encrypted or checksummed Berkeley DB file, which the import does not read")
	}
	if size < 512 || size > 65536 || len(data)%size != 0 {
		return nil, fmt.Errorf("a Berkeley DB file of page size %d and length %d, which the import does not read", size, len(data))
	}
	var out [][2]string
	for p := size; p+size <= len(data); p += size {
		page := data[p : p+size]
		if t := page[25]; t != bdbHashSorted && t != bdbHashOld {
			continue
		}
		n := int(order.Uint16(page[20:]))
		if bdbPageHeader+2*n > size || n%2 != 0 {
			return nil, fmt.Errorf("a damaged Berkeley DB page at %d", p)
		}
		end := size
		var item [2]string
		for i := range n {
			at := int(order.Uint16(page[bdbPageHeader+2*i:]))
			if at < bdbPageHeader+2*n || at >= end {
				return nil, fmt.Errorf("a damaged Berkeley DB page at %d", p)
			}
			if page[at] != bdbKeyData {
				return nil, errors.New("a Berkeley DB entry kept on overflow pages (a long value) or with duplicates, which the import does not read")
			}
			item[i%2] = string(page[at+1 : end])
			end = at
			if i%2 == 1 {
				out = append(out, item)
			}
		}
	}
	return out, nil
}
