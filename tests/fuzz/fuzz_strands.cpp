// libFuzzer harness: the der strand-set file reader (modules/der/strand_set_file.hpp), the HDF5
// file a der optimisation writes and a forward run loads. The input is written to a temporary file
// and read as der reads it: the offsets, then every strand.
#include "framework/core/comm.hpp"
#include "modules/der/strand_set_file.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kinema::fuzz::initMpi(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kinema::fuzz::TempFile file(".h5");
  const std::string& path = file.write(data, size);
  const kinema::Comm comm = kinema::Comm::world();
  kinema::fuzz::expectOnlyKinemaErrors([&] {
    const auto offsets = kinema::der::readStrandOffsets(path, comm);
    const auto strands = static_cast<std::int64_t>(offsets.size()) - 1;  // offsets has S + 1 entries
    (void)kinema::der::readStrandSet(path, comm, 0, strands);
    if (strands > 1) (void)kinema::der::readStrandSet(path, comm, strands / 2, strands - strands / 2);
  });
  kinema::fuzz::expectNoOpenHdf5Objects();
  return 0;
}
