// Package geoip answers the country of a client address from a
// MaxMind-format database (GeoLite2-Country, GeoIP2-Country or City), for
// rules with when.country. A lookup allocates nothing once the database's
// few country records have each been decoded once.
package geoip

import (
	"fmt"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"

	"github.com/oschwald/maxminddb-golang/v2"
)

// DB is an opened country database, safe for concurrent use.
type DB struct {
	r *maxminddb.Reader
	// codes maps a record's data offset to its country code. Networks
	// share records (one per country), so it holds a few hundred
	// entries; it is replaced whole (copy on write), so that lookups read
	// it without a lock.
	codes atomic.Pointer[map[uintptr]string]
	mu    sync.Mutex // serialises writers of codes
}

// Open reads the database at path into memory. It is read whole rather
// than mapped, so that a reload that drops this DB while an event loop
// still looks an address up in it never touches unmapped memory: the
// garbage collector frees it after the last lookup.
func Open(path string) (*DB, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := maxminddb.OpenBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not a MaxMind database: %w", path, err)
	}
	db := &DB{r: r}
	m := map[uintptr]string{}
	db.codes.Store(&m)
	return db, nil
}

// record is the part of a country record read: GeoLite2-Country's
// country.iso_code, with registered_country for networks (anycast,
// satellite) that have no country.
type record struct {
	Country struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"country"`
	Registered struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"registered_country"`
}

// Country returns the ISO 3166 code of addr's country, "" when the
// database does not list it or it is not valid.
func (db *DB) Country(addr netip.Addr) string {
	if db == nil || !addr.IsValid() {
		return ""
	}
	res := db.r.Lookup(addr.Unmap())
	if !res.Found() {
		return ""
	}
	off := res.Offset()
	if code, ok := (*db.codes.Load())[off]; ok {
		return code
	}
	return db.decode(off)
}

// decode reads the record at off and files its code: once per record.
func (db *DB) decode(off uintptr) string {
	var rec record
	code := ""
	if err := db.r.LookupOffset(off).Decode(&rec); err == nil {
		code = rec.Country.ISOCode
		if code == "" {
			code = rec.Registered.ISOCode
		}
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	old := *db.codes.Load()
	m := make(map[uintptr]string, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[off] = code
	db.codes.Store(&m)
	return code
}
