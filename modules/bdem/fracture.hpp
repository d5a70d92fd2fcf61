#pragma once
// Fracture criteria (paper §3.3, Eqs. 12-17), evaluated on the converged state:
//   sigma = |F_n|/S + |M_b| r0 / I,   tau = |F_s|/S + |M_t| r0 / J,   break iff sigma > sigmaC or tau > tauC
// with F_n = grad_p V_stretch, F_s = grad_p V_shear (one endpoint), and M_t, M_b the twist and
// bending parts of K' t (Eqs. 14-17). Shared by the implicit and the explicit integrator.
#include "modules/bdem/bond.hpp"

namespace kinema::bdem {

struct BondStress {
  double sigma = 0, tau = 0;
  double Fn = 0, Fs = 0, Mt = 0, Mb = 0;  // the four magnitudes
  bool breaks(const Bond& b) const { return sigma > b.sigmaC || tau > b.tauC; }
};

BondStress bondStress(const Bond& b, const BondModel& model, const Vec3& pi, const Vec4& qi, const Vec3& pj,
                      const Vec4& qj);

}  // namespace kinema::bdem
