// libFuzzer harness: the bdem particle-file reader (modules/bdem/particle_file.hpp, the `file`
// scene generator), CSV and HDF5. An input that starts with HDF5's signature is written to a .h5
// file (particles and /bonds); any other input is CSV: the text before a line "@bonds" is the
// particle CSV, the text after it (if present) the bond CSV. Bonds then come from the file, or
// from the distance rule when there is no bond list. kinema::Error (InputError) is the expected
// outcome of a bad file.
#include <cstring>
#include <string_view>

#include "modules/bdem/particle_file.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kinema::fuzz::initMpi(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kinema::fuzz::TempFile h5(".h5");
  static kinema::fuzz::TempFile csv(".csv");
  static kinema::fuzz::TempFile bonds("-bonds.csv");
  kinema::bdem::ParticleFileOptions o;
  o.materials.resize(2);  // material 0 and 1, as the column scene's file uses
  static const char kHdf5Signature[] = "\x89HDF\r\n\x1a\n";
  if (size >= 8 && std::memcmp(data, kHdf5Signature, 8) == 0) {
    o.path = h5.write(data, size);
  } else {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::size_t cut = text.find("@bonds\n");
    const std::size_t end = cut == std::string_view::npos ? size : cut;
    o.path = csv.write(data, end);
    if (cut != std::string_view::npos) {
      const std::size_t from = cut + 7;
      o.bondsPath = bonds.write(data + from, size - from);
    }
  }
  kinema::fuzz::expectOnlyKinemaErrors([&] { (void)kinema::bdem::readParticleFile(o); });
  kinema::fuzz::expectNoOpenHdf5Objects();
  return 0;
}
