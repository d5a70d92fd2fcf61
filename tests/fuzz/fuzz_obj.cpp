// libFuzzer harness: the OBJ reader (framework/geometry/tri_mesh.hpp): parseObj, then both mesh
// checks (closed solid, open surface) and the queries a module makes of an accepted mesh.
#include <string>

#include "framework/geometry/tri_mesh.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  kinema::fuzz::expectOnlyKinemaErrors([&] {
    kinema::geometry::TriMesh mesh = kinema::geometry::parseObj(text, "fuzz.obj");
    bool surface = false;
    kinema::fuzz::expectOnlyKinemaErrors([&] {
      kinema::geometry::checkSurface(mesh);
      surface = true;
    });
    kinema::fuzz::expectOnlyKinemaErrors([&] {
      kinema::geometry::checkClosed(mesh);
      // A closed mesh is what bdem packs: volume, bounds and the inside test.
      (void)mesh.volume();
      (void)mesh.inside((mesh.lower() + mesh.upper()) / 2);
      mesh.transform(0.5, Eigen::Vector3d(1, 2, 3));
    });
    (void)surface;
  });
  return 0;
}
