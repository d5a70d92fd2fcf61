#pragma once
// Shared by the libFuzzer harnesses of tests/fuzz (docs/reliability.md, "Fuzzing").
//
// Expected outcome of a bad input: a kinema::Error (InputError for bad input). Any other exception
// escapes the harness and libFuzzer reports it as a crash (uncaught exception -> abort), as it does
// for ASan/UBSan reports, leaks and signals.
#include <mpi.h>
#include <sanitizer/lsan_interface.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/io/hdf5_file.hpp"

namespace kinema::fuzz {

// Where the harnesses write their temporary files: /dev/shm (memory) where there is one, so that
// an input costs no disk write.
inline std::string tempDir() {
  static const std::string dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return dir;
}

// MPI once for the process (the HDF5 readers are collective, on one rank here). Never finalised:
// libFuzzer ends the process with exit().
inline void initMpi(int* argc, char*** argv) {
  // Open MPI catches SIGABRT, SIGSEGV, SIGBUS and SIGFPE (opal_signal) to print its own trace,
  // which hides the crash from libFuzzer (no crash input saved): leave the signals to libFuzzer.
  ::setenv("OMPI_MCA_opal_signal", "", 0);
  int done = 0;
  MPI_Initialized(&done);
  if (done) return;
  // Open MPI keeps, unreachable, some of what MPI_Init and its first MPI_File_open allocate
  // (tests/sanitizers/lsan.supp names the libraries). libFuzzer's first leak check after an input
  // would report them; with the fast (frame-pointer) unwinder their stacks end in frames of
  // Open MPI's that the suppressions cannot name. So MPI is initialised, and its MPI-IO
  // components loaded on a file of our own, with LeakSanitizer ignoring what this thread
  // allocates meanwhile; nothing of Kinema's input handling runs in this region.
  __lsan_disable();
  MPI_Init(argc, argv);
  const std::string warm = tempDir() + "/kinema-fuzz-warm-" + std::to_string(::getpid()) + ".h5";
  {
    io::H5File file(warm, io::H5File::Mode::create, Comm::world());
    file.writeAttribute("/", "warm", std::int64_t{1});
  }
  {
    const io::H5File file(warm, io::H5File::Mode::read, Comm::world());
    (void)file.readAttributeInt("/", "warm");
  }
  std::remove(warm.c_str());
  __lsan_enable();
}

// A file of this process holding `data` (the HDF5 and .hair readers read files). Overwritten by
// every input; removed at exit.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix)
      : path_(tempDir() + "/kinema-fuzz-" + std::to_string(::getpid()) + suffix) {}
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

// After an input of an HDF5 reader: no identifier is left open. One left open on an error path
// would keep HDF5's state of the file alive, and the next input (the same path, rewritten) would
// be read through that stale state; aborting makes it a finding with this input.
inline void expectNoOpenHdf5Objects() {
  const std::int64_t open = io::openHdf5Objects();
  if (open == 0) return;
  std::fprintf(stderr, "fuzz: %lld HDF5 identifier(s) left open after the input\n",
               static_cast<long long>(open));
  std::abort();
}

// Runs `f`; a kinema::Error is the expected outcome of a bad input and is swallowed.
template <class F>
void expectOnlyKinemaErrors(F&& f) {
  try {
    f();
  } catch (const kinema::Error&) {
  }
}

}  // namespace kinema::fuzz
