// libFuzzer harness: the .hair reader (modules/der/hair_file.hpp), from memory (parseHair) and
// from a file through the rank-partitioned path (readHairLayout + readHairStrands) that der uses
// on several ranks. Both must accept and refuse the same inputs.
#include <span>

#include "modules/der/hair_file.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kinema::fuzz::TempFile file(".hair");
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  bool memoryOk = false;
  kinema::fuzz::expectOnlyKinemaErrors([&] {
    (void)kinema::der::parseHair(bytes, "fuzz.hair", 0.01);
    memoryOk = true;
  });
  bool fileOk = false;
  kinema::fuzz::expectOnlyKinemaErrors([&] {
    const std::string& path = file.write(data, size);
    const kinema::der::HairLayout layout = kinema::der::readHairLayout(path);
    // Two ranges, as two ranks would read them.
    const std::uint64_t half = layout.strands / 2;
    (void)kinema::der::readHairStrands(path, layout, 0, half, 0.01);
    (void)kinema::der::readHairStrands(path, layout, half, layout.strands - half, 0.01);
    fileOk = true;
  });
  if (memoryOk != fileOk) __builtin_trap();  // the two readers disagree on this input
  return 0;
}
