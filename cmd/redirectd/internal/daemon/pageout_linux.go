package daemon

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pageOutExecutable drops this process's mappings of its own executable's
// code and read-only data once loading is done. Loading runs code that
// serving never runs again (the TOML decoder, the checks, every package's
// init), and the kernel maps in every cached page up to 64 KiB around
// each page touched, so a small site's server held about 16 MiB of the
// binary's pages, where nginx's whole footprint is 6 (benchmarks/README.md,
// "A small site's memory").
//
// MADV_RANDOM first: it stops the read-around on the faults that follow,
// so the pages serving uses come back one at a time rather than with
// their neighbours (with it, 1.8 MiB of the binary is resident after the
// first answers; without, 5.8). MADV_PAGEOUT then reclaims the pages; a
// page another process maps too (a second instance during an upgrade) is
// left alone by the kernel. The price is a read from disk (or the page
// cache) at the first use of each page after this: a few milliseconds
// over the first requests after start or reload. A kernel without
// MADV_PAGEOUT (before 5.4) refuses it and nothing changes.
func pageOutExecutable() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		lo, hi, ok := readOnlyMapping(sc.Bytes(), exe)
		if !ok {
			continue
		}
		// Raw madvise on addresses: only the range's residency changes,
		// no Go memory is read or written through it.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_RANDOM)
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_PAGEOUT)
	}
}

// readOnlyMapping parses one line of /proc/self/maps ("lo-hi perms offset
// dev inode path") and reports the range when it maps path without write
// permission: the code and read-only data, never the data segment, whose
// written pages are private copies.
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
