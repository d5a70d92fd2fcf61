// Registration of the impact module: the time-stepping simulator (sim_stepper.hpp) behind the
// runner (impact_module.hpp).
#include <memory>

#include "framework/run/module.hpp"
#include "modules/impact/impact_module.hpp"

namespace kinema {
void registerModule_impact() {
  run::modules().add({"impact",
                      "balls and rigid bodies with guaranteed-termination simultaneous impact resolution "
                      "(Vouga et al. 2017): cradle, pool break, wedge, geyser, jammed box, granular pile",
                      &impact::ImpactModule::declare, [] { return std::make_unique<impact::ImpactModule>(); }});
  run::estimators().add({"impact", "bodies from the scene's parameters (memory of the distributed world), steps, "
                                   "a lower bound of the time", &impact::ImpactModule::estimate});
}
}  // namespace kinema
