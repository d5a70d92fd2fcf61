#pragma once
// HDF5 1.10.8 can crash on a damaged file before it returns an error: a null read in its metadata
// accumulator (H5F__accum_read, reached through a group B-tree or a message flagged as shared in a
// table the file does not have) and an overread in its object-header message decoder were found
// by fuzzing (docs/reliability.md, "HDF5 files"). The flags that lead there lie inside object
// headers that only HDF5 decodes, so Kinema cannot see them first. Instead, before this process
// opens a file it did not just write, a child process reads the file's metadata with HDF5 (every
// link, object header, attribute, dataset layout and chunk index, and the first value of each
// dataset) and ends; a child that dies on a signal, on a sanitizer report, or does not finish in
// time, twice, marks the file as damaged, and the file is refused here with an InputError before
// HDF5 touches it in this process. A child that does not finish in time is followed by a second
// one: the first may hang on a lock that another thread of this process (an MPI progress thread,
// a sanitizer runtime's allocator, which clang 14's does not take around fork) held at the fork.
#include <string>

namespace kinema::io {

// Settings of the check, from the environment (not a scene key: files are opened by the runner,
// the modules and the tools alike):
//   KINEMA_HDF5_CHECK          on (default) | off: skip the check (a system where fork() is not
//                              allowed after MPI_Init; see docs/reliability.md)
//   KINEMA_HDF5_CHECK_TIMEOUT  seconds each child may take, default 60, range [1, 86400]; a file
//                              whose metadata takes longer in two children is refused
struct Hdf5ProbeSettings {
  bool enabled = true;
  double timeoutSeconds = 60;
  // Called in the child (attempt 0 or 1) before it opens the file; null in Kinema's own use (tests
  // hold a child there, as an inherited lock would).
  void (*beforeWalk)(int attempt) = nullptr;
};
// Throws InputError on a malformed value, naming the variable.
Hdf5ProbeSettings hdf5ProbeSettingsFromEnv();

// Reads the metadata of `file` in a child process (see above). Returns "" when the child read it
// to the end (HDF5 errors on the way, which this process will meet as errors too, do not count)
// or when no child could be started; otherwise the problem, naming the file and how the child
// ended. Waits at most 2 x timeoutSeconds (a warning is logged when the first child times out).
// Not collective: the caller runs it on one rank and shares the answer.
std::string probeHdf5InChild(const std::string& file, const Hdf5ProbeSettings& settings);

}  // namespace kinema::io
