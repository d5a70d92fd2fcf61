#pragma once
// Shared by the libFuzzer harnesses of tests/fuzz (docs/reliability.md, "Fuzzing").
//
// Expected outcome of a bad input: a kinema::Error (InputError for bad input). Any other exception
// escapes the harness and libFuzzer reports it as a crash (uncaught exception -> abort), as it does
// for ASan/UBSan reports, leaks and signals.
#include <mpi.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"

namespace kinema::fuzz {

// MPI once for the process (the HDF5 readers are collective, on one rank here). Never finalised:
// libFuzzer ends the process with exit().
inline void initMpi(int* argc, char*** argv) {
  // Open MPI catches SIGABRT, SIGSEGV, SIGBUS and SIGFPE (opal_signal) to print its own trace,
  // which hides the crash from libFuzzer (no crash input saved): leave the signals to libFuzzer.
  ::setenv("OMPI_MCA_opal_signal", "", 0);
  int done = 0;
  MPI_Initialized(&done);
  if (!done) MPI_Init(argc, argv);
}

// A file of this process holding `data` (the HDF5 and .hair readers read files). Overwritten by
// every input; removed at exit.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix)
      : path_("/tmp/kinema-fuzz-" + std::to_string(::getpid()) + suffix) {}
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `f`; a kinema::Error is the expected outcome of a bad input and is swallowed.
template <class F>
void expectOnlyKinemaErrors(F&& f) {
  try {
    f();
  } catch (const kinema::Error&) {
  }
}

}  // namespace kinema::fuzz
