// Registration of the poisson module (poisson_module.hpp): the call the generated registerBuiltins()
// makes, as for every module (docs/writing-a-module.md, "Register").
#include <memory>

#include "framework/run/module.hpp"
#include "modules/poisson/poisson_module.hpp"

namespace kinema {
void registerModule_poisson() {
  run::modules().add({"poisson",
                      "3D Poisson problem, 7-point stencil, manufactured solution; the worked example",
                      &poisson::PoissonModule::declare,
                      [] { return std::make_unique<poisson::PoissonModule>(); }});
  run::estimators().add({"poisson", "unknowns of the finest level (memory), solves (steps)",
                         &poisson::PoissonModule::estimate});
}
}  // namespace kinema
