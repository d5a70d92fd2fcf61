// libFuzzer harness: the scene loader (framework/run/scene.hpp) and its validation against the
// schema of every registered module. The input is YAML text; it is parsed (Config::fromString),
// given the `backend: NAME` shorthand as loadScene does, and validated against schemaFor(m) for
// each module m (framework + backends + m), then checked for the linear-solver choices and
// printed resolved, as `kinema check` does. run.plugin_path is not followed (no library is loaded
// from a fuzzed path). InputError is the expected outcome of a bad scene.
#include <string>
#include <utility>
#include <vector>

#include "apps/builtins.hpp"
#include "framework/core/config.hpp"
#include "framework/core/registry.hpp"
#include "framework/la/linear_solver_params.hpp"
#include "framework/run/module.hpp"
#include "framework/run/scene.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace {
// Every module's schema, built once (building a schema is not what is fuzzed).
std::vector<std::pair<std::string, kinema::ParamSchema>> gSchemas;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kinema::registerBuiltins();
  for (const std::string& module : kinema::run::modules().names())
    gSchemas.emplace_back(module, kinema::run::schemaFor(module));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto& entry : gSchemas) {
    const kinema::ParamSchema& schema = entry.second;
    kinema::fuzz::expectOnlyKinemaErrors([&] {
      kinema::Config config = kinema::Config::fromString(text, "fuzz.yaml");
      config.expandShorthand("backend", "name");
      (void)config.rawScalar("module");
      (void)config.where("module");
      config.validate(schema);
      kinema::la::checkLinearSolverChoices(config, schema);
      (void)config.resolvedYaml();
    });
  }
  return 0;
}
