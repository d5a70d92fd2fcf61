// Built by tests/install/install_examples.sh with only `pkg-config --cflags --libs kinema`: the
// installed headers compile and the installed libraries link and run, with every built-in module
// registered. Prints the version and the module names.
#include <cstdio>

#include "apps/builtins.hpp"
#include "framework/core/registry.hpp"
#include "framework/core/version.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/module.hpp"

int main() {
  kinema::registerBuiltins();
  std::printf("kinema %s\nmodules:", KINEMA_VERSION_STRING);
  for (const auto& name : kinema::run::modules().names()) std::printf(" %s", name.c_str());
  std::printf("\nbackends:");
  for (const auto& name : kinema::la::backends().names()) std::printf(" %s", name.c_str());
  std::printf("\n");
  return kinema::run::modules().has("poisson") && kinema::la::backends().has("eigen") ? 0 : 1;
}
