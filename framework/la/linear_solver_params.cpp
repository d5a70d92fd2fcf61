#include "framework/la/linear_solver_params.hpp"

#include <algorithm>

#include "framework/core/error.hpp"
#include "framework/core/strings.hpp"
#include "framework/la/solver_types.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/preconditioner.hpp"

namespace kinema::la {

void declareLinearSolverParams(ParamSchema& schema, const std::string& prefix,
                               const LinearSolverOptions& defaults) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  schema.addChoice(p + "type", defaults.type, linearSolverTypes(),
                   "linear solver: cg (SPD), minres (symmetric), gmres (general) or direct");
  schema.addString(p + "preconditioner", defaults.preconditioner,
                   "preconditioner: none, jacobi, ic0, ssor, amg, direct or a framework one");
  schema.addReal(p + "rtol", defaults.rtol, Range{0.0, 1.0, false, true},
                 "relative tolerance on the true residual: ||b - Ax|| <= rtol ||b||");
  schema.addReal(p + "atol", defaults.atol, Range::nonNegative(),
                 "absolute tolerance on the true residual (the larger of the two wins)");
  schema.addInt(p + "max_iterations", defaults.maxIterations, Range::atLeast(1),
                "iteration limit; reaching it is reported, not an error");
  schema.addInt(p + "restart", defaults.restart, Range::atLeast(1),
                "GMRES restart length (Krylov vectors kept)");
  schema.addChoice(p + "reuse_preconditioner", defaults.reusePreconditioner, {"none", "interpolation", "full"},
                   "on a refill of the same matrix (values changed, pattern not): none = set the "
                   "preconditioner up anew, interpolation = AMG keeps its aggregates / interpolation "
                   "and recomputes the coarse operators (GAMG, MueLu RP), full = keep it as it is");
  schema.addTree(p + "native",
                 "options for this solver only, by backend: petsc: \"-ksp_monitor ...\", "
                 "trilinos: {belos: {...}, ifpack2: {...}, muelu: {...}}");
}

LinearSolverOptions readLinearSolverOptions(const Config& config, const std::string& prefix) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  LinearSolverOptions o;
  o.type = config.getString(p + "type");
  o.preconditioner = config.getString(p + "preconditioner");
  o.rtol = config.getReal(p + "rtol");
  o.atol = config.getReal(p + "atol");
  o.maxIterations = static_cast<int>(config.getInt(p + "max_iterations"));
  o.restart = static_cast<int>(config.getInt(p + "restart"));
  o.reusePreconditioner = config.getString(p + "reuse_preconditioner");
  if (YAML::Node native = config.tree(p + "native"); native && native.IsMap())
    for (const auto& kv : native) o.native[kv.first.as<std::string>()] = yamlText(kv.second);
  o.prefix = prefix;
  std::replace(o.prefix.begin(), o.prefix.end(), '.', '_');
  if (!o.prefix.empty()) o.prefix += '_';
  return o;
}

void checkLinearSolverChoices(const Config& config, const ParamSchema& schema) {
  if (!schema.find("backend.name")) return;
  const std::string backend = config.getString("backend.name");
  if (!backends().has(backend)) return;  // validate() has named it already
  const BackendEntry& entry = backends().get(backend);
  std::vector<std::string> offered{"none"};
  for (const auto& n : entry.nativePreconditioners)
    if (std::find(offered.begin(), offered.end(), n) == offered.end()) offered.push_back(n);
  for (const auto& n : customPreconditioners().names()) offered.push_back(n);
  std::string problems;
  for (const ParamSpec& spec : schema.specs()) {
    // The solvers of declareLinearSolverParams: "<prefix>.preconditioner" beside "<prefix>.reuse_preconditioner".
    const std::string tail = "preconditioner";
    if (spec.key.size() < tail.size() || spec.key.compare(spec.key.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string prefix = spec.key.substr(0, spec.key.size() - tail.size());
    if (!schema.find(prefix + "reuse_preconditioner")) continue;
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
