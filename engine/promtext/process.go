package promtext

import (
	"io"

	"github.com/VictoriaMetrics/metrics"
)

// WriteProcess writes the Go runtime and process metrics
// (metrics.WriteProcessMetrics) with HELP text, the io counters typed as
// counters, and without the families promtool rejects by name.
func WriteProcess(w io.Writer) {
	metrics.ExposeMetadata(true)
	fw := &filter{w: w, help: processHelp, retype: processRetype, drop: processDrop}
	metrics.WriteProcessMetrics(fw)
	fw.flush()
}

// processDrop are families whose names promtool rejects ("_count" on a
// counter or gauge) and which tell little here: redirectd makes no cgo
// calls, go_gomaxprocs says how many CPUs it uses, and a forced GC is
// only ever debug.FreeOSMemory after a reload.
var processDrop = map[string]bool{
	"go_cgo_calls_count": true,
	"go_cpu_count":       true,
	"go_gc_forced_count": true,
}

// processRetype corrects families the library writes as gauges but which
// only grow (read from /proc/self/io): promtool rejects a gauge named
// _total.
var processRetype = map[string]string{
	"process_io_read_bytes_total":            "counter",
	"process_io_written_bytes_total":         "counter",
	"process_io_read_syscalls_total":         "counter",
	"process_io_write_syscalls_total":        "counter",
	"process_io_storage_read_bytes_total":    "counter",
	"process_io_storage_written_bytes_total": "counter",
}

// processHelp is the HELP text of what metrics.WriteProcessMetrics writes
// on Linux (v1.45.0: go_metrics.go, process_metrics_linux.go). A library
// upgrade that adds a family fails TestProcessHelp, which names it.
var processHelp = Help{
	"go_gc_cpu_seconds_total":                       "CPU time spent in the garbage collector, in seconds.",
	"go_gc_duration_seconds":                        "Pause times of the last garbage collections, in seconds.",
	"go_gc_mark_assist_cpu_seconds_total":           "CPU time goroutines spent assisting the garbage collector, in seconds.",
	"go_gc_pauses_seconds":                          "Distribution of stop-the-world garbage collection pauses, in seconds.",
	"go_gomaxprocs":                                 "GOMAXPROCS: the CPUs Go runs goroutines on at once.",
	"go_goroutines":                                 "Goroutines that exist now.",
	"go_info":                                       "The Go version the binary was built with.",
	"go_info_ext":                                   "The compiler, GOARCH, GOOS and GOROOT of the build.",
	"go_memlimit_bytes":                             "The Go runtime's soft memory limit (GOMEMLIMIT), in bytes.",
	"go_memstats_alloc_bytes":                       "Bytes of heap objects allocated and not yet freed.",
	"go_memstats_alloc_bytes_total":                 "Bytes allocated for heap objects since start.",
	"go_memstats_buck_hash_sys_bytes":               "Bytes of memory in profiling bucket hash tables.",
	"go_memstats_frees_total":                       "Heap objects freed since start.",
	"go_memstats_gc_cpu_fraction":                   "Fraction of CPU time used by the garbage collector since start.",
	"go_memstats_gc_sys_bytes":                      "Bytes of memory in garbage collection metadata.",
	"go_memstats_heap_alloc_bytes":                  "Bytes of allocated heap objects.",
	"go_memstats_heap_idle_bytes":                   "Bytes in idle (unused) heap spans.",
	"go_memstats_heap_inuse_bytes":                  "Bytes in in-use heap spans.",
	"go_memstats_heap_objects":                      "Allocated heap objects.",
	"go_memstats_heap_released_bytes":               "Bytes of physical memory returned to the operating system.",
	"go_memstats_heap_sys_bytes":                    "Bytes of heap memory obtained from the operating system.",
	"go_memstats_last_gc_time_seconds":              "Time the last garbage collection finished, in seconds since the Unix epoch.",
	"go_memstats_lookups_total":                     "Pointer lookups performed by the runtime since start.",
	"go_memstats_mallocs_total":                     "Heap objects allocated since start.",
	"go_memstats_mcache_inuse_bytes":                "Bytes of allocated mcache structures.",
	"go_memstats_mcache_sys_bytes":                  "Bytes of memory obtained from the operating system for mcache structures.",
	"go_memstats_mspan_inuse_bytes":                 "Bytes of allocated mspan structures.",
	"go_memstats_mspan_sys_bytes":                   "Bytes of memory obtained from the operating system for mspan structures.",
	"go_memstats_next_gc_bytes":                     "Heap size at which the next garbage collection starts, in bytes.",
	"go_memstats_other_sys_bytes":                   "Bytes of memory in miscellaneous off-heap runtime allocations.",
	"go_memstats_stack_inuse_bytes":                 "Bytes in stack spans.",
	"go_memstats_stack_sys_bytes":                   "Bytes of stack memory obtained from the operating system.",
	"go_memstats_sys_bytes":                         "Bytes of memory obtained from the operating system in all.",
	"go_mutex_wait_seconds_total":                   "Time goroutines spent blocked on a sync.Mutex or sync.RWMutex, in seconds.",
	"go_scavenge_cpu_seconds_total":                 "CPU time spent returning memory to the operating system, in seconds.",
	"go_sched_latencies_seconds":                    "Distribution of the time goroutines waited to run after becoming runnable, in seconds.",
	"go_threads":                                    "Operating system threads created.",
	"process_cgroup_cpu_throttled_seconds_total":    "Time the process's cgroup was throttled by its CPU limit, in seconds.",
	"process_cpu_seconds_system_total":              "CPU time spent in the kernel, in seconds.",
	"process_cpu_seconds_total":                     "CPU time spent in user space and the kernel, in seconds.",
	"process_cpu_seconds_user_total":                "CPU time spent in user space, in seconds.",
	"process_io_read_bytes_total":                   "Bytes read by read(2) and similar calls.",
	"process_io_read_syscalls_total":                "Read system calls.",
	"process_io_storage_read_bytes_total":           "Bytes read from storage.",
	"process_io_storage_written_bytes_total":        "Bytes written to storage.",
	"process_io_write_syscalls_total":               "Write system calls.",
	"process_io_written_bytes_total":                "Bytes written by write(2) and similar calls.",
	"process_major_pagefaults_total":                "Page faults that needed a disk read.",
	"process_minor_pagefaults_total":                "Page faults served without a disk read.",
	"process_num_threads":                           "Operating system threads of the process.",
	"process_pressure_cpu_stalled_seconds_total":    "Time all non-idle tasks of the cgroup were stalled on CPU (PSI full), in seconds.",
	"process_pressure_cpu_waiting_seconds_total":    "Time some tasks of the cgroup waited for CPU (PSI some), in seconds.",
	"process_pressure_io_stalled_seconds_total":     "Time all non-idle tasks of the cgroup were stalled on I/O (PSI full), in seconds.",
	"process_pressure_io_waiting_seconds_total":     "Time some tasks of the cgroup waited for I/O (PSI some), in seconds.",
	"process_pressure_memory_stalled_seconds_total": "Time all non-idle tasks of the cgroup were stalled on memory (PSI full), in seconds.",
	"process_pressure_memory_waiting_seconds_total": "Time some tasks of the cgroup waited for memory (PSI some), in seconds.",
	"process_resident_memory_anon_bytes":            "Resident anonymous memory, in bytes.",
	"process_resident_memory_bytes":                 "Resident memory, in bytes.",
	"process_resident_memory_file_bytes":            "Resident file-backed memory, in bytes.",
	"process_resident_memory_peak_bytes":            "Peak resident memory (VmHWM), in bytes.",
	"process_resident_memory_shared_bytes":          "Resident shared memory, in bytes.",
	"process_start_time_seconds":                    "Start time of the process, in seconds since the Unix epoch.",
	"process_virtual_memory_bytes":                  "Virtual memory size, in bytes.",
	"process_virtual_memory_peak_bytes":             "Peak virtual memory size (VmPeak), in bytes.",
	"process_max_fds":                               "The open-file limit.",
	"process_open_fds":                              "Open file descriptors.",
}
