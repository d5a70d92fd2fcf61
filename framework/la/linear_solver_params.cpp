#include "framework/la/linear_solver_params.hpp"

#include <algorithm>

#include "framework/core/error.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/core/strings.hpp"
#include "framework/la/solver_types.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/preconditioner.hpp"

namespace kinema::la {

namespace {
// Keys checkLinearSolverChoices looks for, besides binding them.
constexpr const char* kPreconditioner = "preconditioner";
constexpr const char* kReusePreconditioner = "reuse_preconditioner";
}  // namespace

const ParamBindings<LinearSolverOptions>& linearSolverBindings() {
  static const ParamBindings<LinearSolverOptions> b = [] {
    using O = LinearSolverOptions;
    ParamBindings<O> r;
    r.choice("type", &O::type, linearSolverTypes(),
             "linear solver: cg (SPD), minres (symmetric), gmres (general) or direct");
    // Every name some registered backend or the framework offers: a typo is a validation error
    // naming the key; checkLinearSolverChoices then refuses one the scene's backend lacks.
    r.choiceFrom(kPreconditioner, &O::preconditioner, preconditionerNames,
                 "preconditioner: none, jacobi, ic0, ssor, amg, direct or a framework one");
    r.real("rtol", &O::rtol, Range{0.0, 1.0, false, true},
           "relative tolerance on the true residual: ||b - Ax|| <= rtol ||b||");
    r.real("atol", &O::atol, Range::nonNegative(), "absolute tolerance on the true residual (the larger of the two wins)");
    r.integer("max_iterations", &O::maxIterations, Range::atLeast(1),
              "iteration limit; reaching it is reported, not an error");
    r.integer("restart", &O::restart, Range::atLeast(1), "GMRES restart length (Krylov vectors kept)");
    r.choice(kReusePreconditioner, &O::reusePreconditioner, {"none", "interpolation", "full"},
             "on a refill of the same matrix (values changed, pattern not): none = set the "
             "preconditioner up anew, interpolation = AMG keeps its aggregates / interpolation "
             "and recomputes the coarse operators (GAMG, MueLu RP), full = keep it as it is until a solve "
             "takes more than twice the iterations of the first solve after the set-up");
    r.custom(
        "native",
        [](ParamSchema& s, const std::string& key, const O&) -> ParamSpec& {
          return s.addTree(key,
                           "options for this solver only, by backend: petsc: \"-ksp_monitor ...\", "
                           "trilinos: {belos: {...}, ifpack2: {...}, muelu: {...}}");
        },
        [](const Config& c, const std::string& key, O& o) {  // by backend name, as YAML text
          for (auto& [backend, text] : c.treeEntries(key)) o.native[backend] = std::move(text);
        });
    // The native option prefix: "poisson.solver" -> "poisson_solver_".
    r.thenWithPrefix([](O& o, const std::string& prefix) {
      o.prefix = prefix;
      std::replace(o.prefix.begin(), o.prefix.end(), '.', '_');
      if (!o.prefix.empty()) o.prefix += '_';
    });
    return r;
  }();
  return b;
}



void checkLinearSolverChoices(const Config& config, const ParamSchema& schema) {
  if (!schema.find(backendNameKey())) return;
  const std::string backend = readBackendParams(config).name;
  if (!backends().has(backend)) return;  // validate() has named it already
  const BackendEntry& entry = backends().get(backend);
  std::vector<std::string> offered{"none"};
  for (const auto& n : entry.nativePreconditioners)
    if (std::find(offered.begin(), offered.end(), n) == offered.end()) offered.push_back(n);
  for (const auto& n : anyOperatorPreconditioners()) offered.push_back(n);
  std::string problems;
  for (const ParamSpec& spec : schema.specs()) {
    // The solvers of linearSolverBindings(): "<prefix>.preconditioner" beside "<prefix>.reuse_preconditioner".
    const std::string tail = kPreconditioner;
    if (spec.key.size() < tail.size() || spec.key.compare(spec.key.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string prefix = spec.key.substr(0, spec.key.size() - tail.size());
    if (!schema.find(prefix + kReusePreconditioner)) continue;
    const std::string value = config.getString(spec.key);
    if (std::find(offered.begin(), offered.end(), value) != offered.end()) continue;
    const std::string list = joinNames(offered);
    std::string elsewhere;
    for (const auto& [name, other] : backends().entries()) {
      const auto& pcs = other.nativePreconditioners;
      if (name != backend && std::find(pcs.begin(), pcs.end(), value) != pcs.end())
        elsewhere += (elsewhere.empty() ? "" : ", ") + name;
    }
    const std::string at = config.where(spec.key);
    if (!problems.empty()) problems += '\n';
    if (!at.empty()) problems += at + ": ";
    problems += str(spec.key, ": '", value, "' is not a preconditioner of the ", backend, " backend (it offers: ", list, ")");
    if (!elsewhere.empty())
      problems += str("; the ", elsewhere,
                      elsewhere.find(',') == std::string::npos ? " backend offers it" : " backends offer it");
  }
  if (!problems.empty()) throw InputError(problems);
}

}  // namespace kinema::la
