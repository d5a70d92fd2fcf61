// Fracture criteria (paper §3.3, Eqs. 12-17) on the converged state.
#include "modules/bdem/fracture.hpp"

#include <cmath>

#include "modules/bdem/bond_energy.hpp"

namespace kinema::bdem {

BondStress bondStress(const Bond& b, const BondModel& model, const Vec3& pi, const Vec4& qi, const Vec3& pj,
                      const Vec4& qj) {
  BondStress st;
  // Eq. 14: F_n = grad_{p_i} V_stretch, |F_n| = kn |l - l0|; tension only: l > l0 (README decision 34).
  const double l = (pj - pi).norm();
  st.Fn = b.kn * std::abs(l - b.l0);
  if (model.tensionOnly && !(l > b.l0)) st.Fn = 0.0;
  // Eq. 15: F_s = grad_{p_i} V_shear (one endpoint; both give the same magnitude).
  Vec14 g = Vec14::Zero();
  shearEnergy(b, model, pi, qi, pj, qj, &g, nullptr);
  st.Fs = g.head<3>().norm();
  // Eqs. 16-17 in the R0-free form: M = K' (s c), M_t = |d0 . M|, M_b = |(I - d0 d0^T) M|.
  const Vec3 M = bendTwistMoment(b, model, qi, qj);
  const double mt = b.d0Bend.dot(M);
  st.Mt = std::abs(mt);
  st.Mb = (M - mt * b.d0Bend).norm();
  // Eqs. 12-13.
  st.sigma = st.Fn / b.S + st.Mb * b.r0 / b.I;
  st.tau = st.Fs / b.S + st.Mt * b.r0 / b.J;
  return st;
}

}  // namespace kinema::bdem
