// Names and factory of the BCQP preconditioners (see qp_preconditioner.hpp). The implementations:
// asc_preconditioner.hpp (the paper's), band_sweep_preconditioners.hpp (none, jacobi, wjacobi,
// ssor), band_incomplete_cholesky.hpp (ic0, mic), amg_qp_preconditioner.hpp (amg).
#include "modules/der/qp_preconditioner.hpp"

#include "framework/core/error.hpp"
#include "framework/core/strings.hpp"
#include "modules/der/amg_qp_preconditioner.hpp"
#include "modules/der/asc_preconditioner.hpp"
#include "modules/der/band_incomplete_cholesky.hpp"
#include "modules/der/band_sweep_preconditioners.hpp"

namespace kinema::der {

const std::vector<std::string>& qpPreconditionerNames() {
  // The order of the paper's Fig. 8: none, D, WJ, SSOR, SAAMG, IC, MIC, ASC.
  static const std::vector<std::string> names{"none", "jacobi", "wjacobi", "ssor", "amg", "ic0", "mic", "asc"};
  return names;
}

std::shared_ptr<BandedQpPreconditioner> makeQpPreconditioner(const std::string& name,
                                                             const QpPreconditionerOptions& options,
                                                             const la::Backend& backend) {
  if (name == "asc") return std::make_shared<AscPreconditioner>(options.pivotFloor);
  if (name == "none") return std::make_shared<NoneQpPreconditioner>();
  if (name == "jacobi") return std::make_shared<JacobiQpPreconditioner>();
  if (name == "wjacobi")
    return std::make_shared<WeightedJacobiQpPreconditioner>(options.wjacobiOmega, options.wjacobiSweeps);
  if (name == "ssor") return std::make_shared<SsorQpPreconditioner>(options.ssorOmega);
  if (name == "ic0" || name == "mic") {
    IncompleteLdltOptions o;
    o.modified = name == "mic";
    o.tau = options.micTau;
    o.sigma = options.micSigma;
    o.pivotFloor = options.pivotFloor;
    return std::make_shared<IncompleteCholeskyQpPreconditioner>(o);
  }
  if (name == "amg") return std::make_shared<AmgQpPreconditioner>(backend);
  throw InputError(str("unknown BCQP preconditioner '", name, "' (known: ", joinNames(qpPreconditionerNames()), ")"));
}

}  // namespace kinema::der
