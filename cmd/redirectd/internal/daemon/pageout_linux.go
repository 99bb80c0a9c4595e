package daemon

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pageOutExecutable unmaps this process's pages of its own executable's
// code and read-only data once a load is done. Loading runs code that
// serving never runs again (the TOML decoder, the checks, every package's
// init), and the kernel maps in every cached page up to 64 KiB around
// each page touched, so a small site's server held about 16 MiB of the
// binary's pages, where nginx's whole footprint is 6 (benchmarks/README.md,
// "A small site's memory"); serving alone faults back about 6.
//
// MADV_DONTNEED drops only this process's mappings: the pages stay in the
// page cache, so those serving needs come back as minor faults, and the
// next load or start reads nothing from disk. (MADV_PAGEOUT with
// MADV_RANDOM left a third as much mapped but evicted the pages: a reload
// of a 17,572-entry map took 80 ms instead of 30-55, and a restart 4 ms
// more.) A mapping holding any anonymous page is left alone: a private
// copy, such as relocations the dynamic loader wrote into a RELRO segment
// of a PIE build, would be lost to the file's contents.
func pageOutExecutable() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return
	}
	var lo, hi uintptr
	candidate := false
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		line := sc.Bytes()
		if rest, ok := bytes.CutPrefix(line, []byte("Anonymous:")); ok {
			if f := bytes.Fields(rest); candidate && len(f) > 0 && string(f[0]) == "0" {
				// Raw madvise on addresses: only the range's mappings
				// change, no Go memory is read or written through it.
				_, _, _ = unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_DONTNEED)
			}
			candidate = false
			continue
		}
		if l, h, ok := readOnlyMapping(line, exe); ok {
			lo, hi, candidate = l, h, true
		}
	}
}

// readOnlyMapping parses a mapping's line of /proc/self/maps or smaps
// ("lo-hi perms offset dev inode path") and reports the range when it maps
// path without write permission: the code and read-only data, never the
// data segment, whose written pages are private copies.
func readOnlyMapping(line []byte, path string) (lo, hi uintptr, ok bool) {
	f := bytes.Fields(line)
	if len(f) < 6 || string(bytes.Join(f[5:], []byte(" "))) != path || len(f[1]) < 2 || f[1][1] != '-' {
		return 0, 0, false
	}
	a, b, found := bytes.Cut(f[0], []byte("-"))
	if !found {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(string(a), 16, 64)
	h, err2 := strconv.ParseUint(string(b), 16, 64)
	if err1 != nil || err2 != nil || h <= l {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}
