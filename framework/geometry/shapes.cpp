#include "framework/geometry/shapes.hpp"

#include <Eigen/LU>  // determinant()
#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::geometry {

template <int D>
void validate(const Sphere<D>& s, std::int64_t index) {
  if (!s.centre.allFinite())
    throw InputError(str("sphere ", index, ": centre (", s.centre.transpose(),
                         ") has a NaN or infinite coordinate"));
  if (!std::isfinite(s.radius) || s.radius < 0.0)
    throw InputError(str("sphere ", index, ": radius ", s.radius, " must be finite and >= 0"));
}

template <int D>
void validate(const HalfSpace<D>& h, std::int64_t index) {
  if (!h.normal.allFinite() || !std::isfinite(h.offset))
    throw InputError(str("half-space ", index, ": normal (", h.normal.transpose(), ") or offset ",
                         h.offset, " is NaN or infinite"));
  if (std::abs(h.normal.norm() - 1.0) > 1e-6)
    throw InputError(str("half-space ", index, ": normal (", h.normal.transpose(),
                         ") is not unit (norm ", h.normal.norm(), ")"));
}

template <int D>
void validate(const Box<D>& b, std::int64_t index) {
  if (!b.centre.allFinite() || !b.rotation.allFinite() || !b.halfExtents.allFinite())
    throw InputError(str("box ", index, ": centre, rotation or half extents has a NaN or infinite "
                         "coordinate"));
  for (int k = 0; k < D; ++k)
    if (b.halfExtents[k] < 0.0)
      throw InputError(str("box ", index, ": half extent ", b.halfExtents[k], " on axis ", k,
                           " is negative"));
  using Mat = typename Box<D>::Mat;
  const double err = (b.rotation.transpose() * b.rotation - Mat::Identity()).cwiseAbs().maxCoeff();
  if (err > 1e-6 || b.rotation.determinant() < 0.0)
    throw InputError(str("box ", index, ": rotation is not a proper orthonormal matrix (|R^T R - I| = ",
                         err, ", det = ", b.rotation.determinant(), ")"));
}

template void validate<2>(const Sphere<2>&, std::int64_t);
template void validate<3>(const Sphere<3>&, std::int64_t);
template void validate<2>(const HalfSpace<2>&, std::int64_t);
template void validate<3>(const HalfSpace<3>&, std::int64_t);
template void validate<2>(const Box<2>&, std::int64_t);
template void validate<3>(const Box<3>&, std::int64_t);

}  // namespace kinema::geometry
