// Names and factory of the BCQP preconditioners (see qp_preconditioner.hpp). The implementations:
// asc_preconditioner.hpp (the paper's), band_sweep_preconditioners.hpp (none, jacobi, wjacobi,
// ssor), band_incomplete_cholesky.hpp (ic0, mic), amg_qp_preconditioner.hpp (amg).
#include "modules/der/qp_preconditioner.hpp"

#include <algorithm>

#include "framework/core/error.hpp"
#include "framework/core/strings.hpp"
#include "modules/der/amg_qp_preconditioner.hpp"
#include "modules/der/asc_preconditioner.hpp"
#include "modules/der/band_incomplete_cholesky.hpp"
#include "modules/der/band_sweep_preconditioners.hpp"

namespace kinema::der {

namespace {
constexpr const char* kPrefix = "der.";
constexpr const char* kForOperator = "der's banded BCQP Hessian (der.optimize.preconditioner)";

template <class P, class... Args>
la::CustomPreconditionerEntry entry(const char* name, const char* help, Args... args) {
  return {std::string(kPrefix) + name, help, kForOperator,
          [args...](const la::Backend&) -> std::unique_ptr<la::Preconditioner> { return std::make_unique<P>(args...); }};
}
}  // namespace

void registerQpPreconditioners() {
  static const bool registered = [] {
    // Constructed with QpPreconditionerOptions' defaults; makeQpPreconditioner configures them.
    const QpPreconditionerOptions d;
    IncompleteLdltOptions ic, mic;
    mic.modified = true;
    auto& r = la::customPreconditioners();
    r.add(entry<AscPreconditioner>("asc", "active-set Cholesky: one banded LDL^T of A per BCQP, applied to the free set "
                                          "(paper §V-A, corrected Eq. 34-35)", d.pivotFloor));
    r.add(entry<NoneQpPreconditioner>("none", "no preconditioning (z_F = r_F, z_C = 0)"));
    r.add(entry<JacobiQpPreconditioner>("jacobi", "diagonal of A_FF"));
    r.add(entry<WeightedJacobiQpPreconditioner>("wjacobi", "sweeps of weighted Jacobi on A_FF", d.wjacobiOmega,
                                                d.wjacobiSweeps));
    r.add(entry<SsorQpPreconditioner>("ssor", "symmetric SOR on A_FF", d.ssorOmega));
    r.add(entry<IncompleteCholeskyQpPreconditioner>("ic0", "IC(0) on the band of A, applied to the free set", ic));
    r.add(entry<IncompleteCholeskyQpPreconditioner>("mic", "Bridson's modified IC on the band of A", mic));
    r.add({std::string(kPrefix) + "amg", "the backend's AMG on A assembled over one rank (not active-set aware)",
           kForOperator, [](const la::Backend& b) -> std::unique_ptr<la::Preconditioner> {
             return std::make_unique<AmgQpPreconditioner>(b);
           }});
    return true;
  }();
  (void)registered;
}

std::string qpPreconditionerRegistryName(const std::string& name) { return kPrefix + name; }

std::vector<std::string> qpPreconditionerNames() {
  registerQpPreconditioners();
  std::vector<std::string> names;
  for (const auto& [n, e] : la::customPreconditioners().entries())
    if (e.forOperator == kForOperator) names.push_back(n.substr(std::string(kPrefix).size()));
  return names;
}

std::shared_ptr<BandedQpPreconditioner> makeQpPreconditioner(const std::string& name,
                                                             const QpPreconditionerOptions& options,
                                                             const la::Backend& backend) {
  registerQpPreconditioners();
  const std::vector<std::string> names = qpPreconditionerNames();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw InputError(str("unknown BCQP preconditioner '", name, "' (known: ", joinNames(names), ")"));
  std::unique_ptr<la::Preconditioner> made = backend.createPreconditioner(qpPreconditionerRegistryName(name));
  KINEMA_CHECK(dynamic_cast<BandedQpPreconditioner*>(made.get()) != nullptr, "preconditioner '",
               qpPreconditionerRegistryName(name), "' is registered for der's BCQP but is not a BandedQpPreconditioner");
  std::shared_ptr<BandedQpPreconditioner> p(static_cast<BandedQpPreconditioner*>(made.release()));
  p->configure(options);
  return p;
}

}  // namespace kinema::der
