// Registration of the bdem module: implicit bonded discrete elements with Newton on the quaternion
// manifold (Lu, Cao, Li, Hu, "Implicit Bonded Discrete Element Method with Manifold
// Optimization") behind the runner (bdem_module.hpp).
#include <memory>

#include "framework/run/module.hpp"
#include "modules/bdem/bdem_module.hpp"

namespace kinema {
void registerModule_bdem() {
  run::modules().add({"bdem",
                      "bonded discrete elements (spheres joined by breakable parallel bonds) integrated implicitly "
                      "with Newton on the quaternion manifold (Lu et al., Implicit Bonded DEM, Alg. 2-3): cantilever, beam stretch / twist / "
                      "drape, three-point bending, plate and chocolate drops, yarn sheet",
                      &bdem::BdemModule::declare, [] { return std::make_unique<bdem::BdemModule>(); }});
  run::estimators().add({"bdem", "particles from the generator's geometry (memory), time steps, a lower bound of the time",
                         &bdem::BdemModule::estimate});
}
}  // namespace kinema
