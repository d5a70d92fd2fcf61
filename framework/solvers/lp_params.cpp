#include "framework/solvers/lp_params.hpp"

namespace kinema::solvers {

void declareLpParams(ParamSchema& schema, const std::string& prefix, const LpOptions& defaults) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  schema.addChoice(p + "algorithm", defaults.algorithm, {"dual", "primal"},
                   "LP simplex algorithm (COIN-OR Clp): dual or primal");
  schema.addReal(p + "feasibility_tolerance", defaults.feasibilityTolerance, Range::open(0.0, 1e-2),
                 "primal feasibility tolerance of the LP solver (on bounds and rows)");
  schema.addReal(p + "optimality_tolerance", defaults.optimalityTolerance, Range::open(0.0, 1e-2),
                 "dual feasibility tolerance of the LP solver (on reduced costs)");
  schema.addReal(p + "verify_tolerance", defaults.verifyTolerance, Range::open(0.0, 1e-1),
                 "scaled tolerance of Kinema's own check of an optimal LP solution; failing it "
                 "is reported as numerical trouble");
  schema.addInt(p + "max_iterations", defaults.maxIterations, Range::atLeast(1),
                "simplex iteration limit; reaching it is reported, not an error");
}

LpOptions readLpOptions(const Config& config, const std::string& prefix) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  LpOptions o;
  o.algorithm = config.getString(p + "algorithm");
  o.feasibilityTolerance = config.getReal(p + "feasibility_tolerance");
  o.optimalityTolerance = config.getReal(p + "optimality_tolerance");
  o.verifyTolerance = config.getReal(p + "verify_tolerance");
  o.maxIterations = static_cast<int>(config.getInt(p + "max_iterations"));
  return o;
}

}  // namespace kinema::solvers
