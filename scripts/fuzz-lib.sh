# Sourced by scripts/fuzz and scripts/fuzz-parallel (docs/reliability.md, "Fuzzing"): the
# sanitizers' settings of a fuzzing run, and the classification of the report that stopped a
# harness.

# fuzz_sanitizer_env ROOT: exports the sanitizer and Open MPI settings; ROOT holds tests/sanitizers.
fuzz_sanitizer_env() {
  # The sanitizers as in scripts/sanitize: leaks on, the suppressions of tests/sanitizers (leaks of
  # the libraries Kinema calls and HDF5's overread, each named there), UBSan findings fatal with a stack.
  # Leaks are checked per input (libFuzzer's -detect_leaks, on by default); not at exit, where MPI,
  # initialised once per process and never finalised by a harness, still holds its memory.
  # allocator_may_return_null: HDF5 asks malloc for what a damaged file claims (petabytes, from its
  # metadata cache) and fails cleanly on NULL; ASan would otherwise stop there. max_allocation_size_mb
  # below -malloc_limit_mb (8192): a single malloc of more returns NULL, as it does in a release
  # build on a machine without that much memory, instead of stopping at libFuzzer's limit (which
  # would also save the input from inside the child process that checks an HDF5 file,
  # framework/io/hdf5_probe.hpp). Kinema's own allocations use operator new, which ASan still
  # reports when it cannot allocate.
  export ASAN_OPTIONS="detect_leaks=1:leak_check_at_exit=0:abort_on_error=0:allocator_may_return_null=1:max_allocation_size_mb=8000:suppressions=$1/tests/sanitizers/asan.supp:${ASAN_OPTIONS:-}"
  # The fast (frame-pointer) unwinder records each allocation's stack: the slow one (DWARF,
  # fast_unwind_on_malloc=0, which scripts/sanitize uses to name the libraries of Open MPI's leaks at
  # exit) made every harness 3.5-6 times slower (obj 1,317 -> 4,789 inputs/s, checkpoint 87 -> 285,
  # particles 143 -> 815, scene 28 -> 166 on the 2-core build machine). Kinema is built with frame
  # pointers, and a library's leak keeps the library's frame next to malloc, which its suppression
  # names; what MPI_Init leaks is never charged to an input (tests/fuzz/fuzz_util.hpp).
  export LSAN_OPTIONS="suppressions=$1/tests/sanitizers/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$1/tests/sanitizers/ubsan.supp:${UBSAN_OPTIONS:-}"
  # The HDF5 harnesses fork a child to check each input (framework/io/hdf5_probe.hpp). A child can
  # hang on a lock of clang 14's ASan allocator that an Open MPI thread held at the fork (CI of
  # 28 Nov 2026: fuzz_strands' first input waited past libFuzzer's -timeout=20); the check then
  # tries a second child. Both must fit in that timeout: 2 x 5 s (a seed's check takes
  # milliseconds).
  export KINEMA_HDF5_CHECK_TIMEOUT=${KINEMA_HDF5_CHECK_TIMEOUT:-5}
  # Open MPI's components stay loaded so that their leaks name their library (lsan.supp).
  export OMPI_MCA_mca_base_component_disable_dlclose=1
  export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

# Is the first report of a libFuzzer log one of the known HDF5 defects (scripts/fuzz)? An ASan
# report whose stack passes, before it reaches any Kinema frame, through H5O__msg_iterate_real (the
# overread decoding a damaged message) or H5SM_get_fheap_addr (a message flagged as shared in a
# shared-message table the file does not have: HDF5 reads the table from an undefined address and
# crashes on a null pointer; h5dump -H crashes on such a file too).
# H5F__accum_read: the same memcpy from address 0 reached from other metadata reads (a group's
# B-tree). Or an allocation larger than -malloc_limit_mb made by HDF5's metadata cache
# (H5C_protect) for an entry whose size it read from the file, before it checks that size against
# the file's end. Or, at the harness's exit, a bad free in HDF5's free lists (H5FL_*_term): one of
# the many damaged files read by the process left HDF5's own heap state inconsistent.
known_hdf5() {
  awk '/ERROR: AddressSanitizer: (heap-buffer-overflow|SEGV)/ {on = 1; next}
       /ERROR: libFuzzer: out-of-memory \(malloc/ {on = 2; next}
       /ERROR: AddressSanitizer: attempting (free|double-free)/ {on = 3; next}
       on && /kinema::/ {exit}
       on == 1 && /H5O__msg_iterate_real|H5SM_get_fheap_addr|H5F__accum_read/ {found = 1; exit}
       on == 2 && /H5C_protect/ {found = 1; exit}
       on == 3 && /H5FL_[a-z_]*term/ {found = 1; exit}
       END {exit !found}' "$1"
}

# Did LeakSanitizer itself fail (its tracer thread, which stops the process's threads with ptrace
# to scan their stacks, crashed: "Tracer caught signal 11", "LeakSanitizer has encountered a fatal
# error")? That is a failure of the tool, not a report about the input: on the 2-core build
# machine it stopped three harnesses after 3-10 s of one run (a loaded machine, no leak reported,
# the unit it wrote empty) and none in the 60 s of the next. Such a stop is counted in the "lsan"
# column, its unit kept in build-fuzz/fuzz/lsan-failed/<h>/, and the harness goes on for the time
# left; a harness whose leak checker fails 20 times fails the script (nothing is then known of
# its leaks).
lsan_failed() {
  grep -q 'LeakSanitizer has encountered a fatal error' "$1" && ! grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$1"
}

# Is the first report of a libFuzzer log an out-of-memory one (counted apart with FUZZ_STRICT=0)?
out_of_memory() {
  grep -m1 -E 'ERROR: (libFuzzer: out-of-memory|AddressSanitizer: (allocator is out of memory|requested allocation size))' "$1" |
    grep -q .
}
