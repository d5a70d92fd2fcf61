// plugin_clash: a plugin that registers a module under a name a built-in has ("poisson"), so that
// loading it must fail with a message naming both origins (tests/plugins/test_plugins.cpp).
#include <memory>

#include "framework/run/module.hpp"

namespace kinema {
void registerModule_plugin_clash() {
  run::modules().add({"poisson", "a second module named poisson", [](ParamSchema&) {},
                      []() -> std::unique_ptr<run::Module> { return nullptr; }});
}
}  // namespace kinema
