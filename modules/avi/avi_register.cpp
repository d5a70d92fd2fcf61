// Registration of the avi module: asynchronous variational integrators with nested penalty-layer
// contact and separating-slab certificates (Vouga et al., CMAME 2011) behind the runner (avi_module.hpp).
#include <memory>

#include "framework/run/module.hpp"
#include "modules/avi/avi_module.hpp"

namespace kinema {
void registerModule_avi() {
  run::modules().add({"avi",
                      "asynchronous variational integrators (every potential on its own clock j h, one event queue) "
                      "with nested penalty-layer contact, separating-slab certificates, restitution and friction "
                      "(Vouga et al. 2011): spring on a plane, balls, sphere-plate, sphere and wedge, cloth on spikes, "
                      "trash compactor, rod knot, OBJ meshes; exact domain decomposition over MPI ranks",
                      &avi::AviModule::declare, [] { return std::make_unique<avi::AviModule>(); }});
  run::estimators().add({"avi", "potentials of the generated scene (memory), their events to end_time, a lower bound of the time",
                         &avi::AviModule::estimate});
}
}  // namespace kinema
