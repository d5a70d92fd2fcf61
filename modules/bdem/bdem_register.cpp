// Registration of the bdem module: implicit bonded discrete elements with Newton on the quaternion
// manifold (specs/bdem.md) behind the runner (bdem_module.hpp).
#include <memory>

#include "framework/run/module.hpp"
#include "modules/bdem/bdem_module.hpp"

namespace kinema {
void registerModule_bdem() {
  run::modules().add({"bdem",
                      "bonded discrete elements (spheres joined by breakable parallel bonds) integrated implicitly "
                      "with Newton on the quaternion manifold (specs/bdem.md): cantilever, beam stretch / twist / "
                      "drape, three-point bending, plate and chocolate drops, yarn sheet",
                      &bdem::BdemModule::declare, [] { return std::make_unique<bdem::BdemModule>(); }});
}
}  // namespace kinema
