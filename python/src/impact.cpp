// kinema.resolve_impact: the impact module's simultaneous-impact resolver (modules/impact/
// resolver.hpp, restitution.hpp; Vouga et al. 2017, sections 2 and 6.2) on balls given as numpy
// arrays: masses, velocities, optional positions, and contacts as body pairs with optional normals.
// Balls are point masses (2 or 3 DOFs, from the velocities' width); an infinite mass is a static
// body (a wall, the ground). Restitution 1 is the elastic resolution (Algorithm 1/3/4 with lazy
// anti-locking, the module's default), below 1 the interpolated model of section 6.2.
#include <pybind11/stl.h>

#include <cmath>

#include "framework/core/error.hpp"
#include "modules/impact/impact_params.hpp"
#include "modules/impact/impact_system.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/restitution.hpp"
#include "python/src/bindings.hpp"

namespace kinema::python {
namespace {

using Dense = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Index = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

Eigen::Vector3d row3(const Dense& a, py::ssize_t i) {
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  for (py::ssize_t k = 0; k < a.shape(1); ++k) v[k] = a.data()[i * a.shape(1) + k];
  return v;
}

py::dict resolve(const Dense& masses, const Dense& velocities, const Index& contacts,
                 const std::optional<Dense>& normals, const std::optional<Dense>& positions, double restitution,
                 const std::string& opName, double epsilon, long maxIterations) {
  if (masses.ndim() != 1) throw InputError("resolve_impact: masses must be a vector (one per ball)");
  const py::ssize_t n = masses.shape(0);
  if (velocities.ndim() != 2 || velocities.shape(0) != n || (velocities.shape(1) != 2 && velocities.shape(1) != 3))
    throw InputError(str("resolve_impact: velocities must be (", n, ", 2) or (", n, ", 3)"));
  const py::ssize_t d = velocities.shape(1);
  if (positions && (positions->ndim() != 2 || positions->shape(0) != n || positions->shape(1) != d))
    throw InputError(str("resolve_impact: positions must be (", n, ", ", d, ") like the velocities"));
  if (contacts.ndim() != 2 || contacts.shape(1) != 2)
    throw InputError("resolve_impact: contacts must be (m, 2): the two bodies of each contact (-1 = the world)");
  const py::ssize_t m = contacts.shape(0);
  if (normals && (normals->ndim() != 2 || normals->shape(0) != m || normals->shape(1) != d))
    throw InputError(str("resolve_impact: normals must be (", m, ", ", d, "): one per contact, from body a to body b"));
  if (!normals && !positions)
    throw InputError("resolve_impact: give the contact normals or the positions (normals from centre to centre)");
  ensureMpi();  // the QPs of gr and of restitution < 1 use la vectors

  impact::ImpactSystem system;
  for (py::ssize_t i = 0; i < n; ++i) {
    const double mass = masses.data()[i];
    const Eigen::Vector3d x = positions ? row3(*positions, i) : Eigen::Vector3d::Zero();
    if (std::isinf(mass) && mass > 0)
      system.addStatic(x);
    else if (d == 2)
      system.addBall2D(mass, x.head<2>());
    else
      system.addBall3D(mass, x);
  }
  std::vector<int> index(static_cast<std::size_t>(m), -1);
  for (py::ssize_t c = 0; c < m; ++c) {
    const auto a = contacts.data()[2 * c], b = contacts.data()[2 * c + 1];
    for (auto body : {a, b})
      if (body < -1 || body >= n)
        throw InputError(str("resolve_impact: contact ", c, " names body ", body, "; bodies are 0..", n - 1, " and -1"));
    Eigen::Vector3d normal, point = Eigen::Vector3d::Zero();
    if (normals) {
      normal = row3(*normals, c);
    } else {
      if (a < 0 || b < 0)
        throw InputError(str("resolve_impact: contact ", c, " is with the world: it needs a normal"));
      normal = row3(*positions, b) - row3(*positions, a);
    }
    if (!(normal.norm() > 0)) throw InputError(str("resolve_impact: contact ", c, " has a zero normal"));
    if (positions && a >= 0 && b >= 0) point = 0.5 * (row3(*positions, a) + row3(*positions, b));
    index[static_cast<std::size_t>(c)] = system.addContact(static_cast<int>(a), static_cast<int>(b), point, normal);
  }

  Eigen::VectorXd qdot0 = Eigen::VectorXd::Zero(system.dofs());
  for (int i = 0; i < system.numBodies(); ++i) {
    const impact::Body& body = system.body(i);
    for (int k = 0; k < body.dofs; ++k) qdot0[body.offset + k] = velocities.data()[i * d + k];
  }

  impact::OperatorOptions opOptions;
  impact::ResolverOptions options = impact::defaultSafeResolverOptions();
  options.epsilon = epsilon;
  options.maxIterations = maxIterations;
  impact::Resolver resolver(options);
  auto op = impact::makeImpactOperator(opName, opOptions);
  Eigen::VectorXd qdot, impulse;
  impact::ResolverStats stats;
  {
    py::gil_scoped_release release;
    if (restitution == 1.0) {
      impact::ResolveResult r = resolver.resolve(system, *op, qdot0);
      qdot = r.qdot, impulse = r.impulse, stats = r.stats;
    } else {
      impact::RestitutionResult r = impact::resolveWithRestitution(system, qdot0, restitution, *op, resolver, opOptions);
      qdot = r.qdot, impulse = r.impulse, stats = r.elasticStats;
    }
  }

  py::array_t<double> v({n, d});
  std::fill(v.mutable_data(), v.mutable_data() + v.size(), 0.0);
  for (int i = 0; i < system.numBodies(); ++i) {
    const impact::Body& body = system.body(i);
    for (int k = 0; k < body.dofs; ++k) v.mutable_data()[i * d + k] = qdot[body.offset + k];
  }
  // Impulses per contact given, along its unit normal: the resolver works on gradients normalised
  // to n^T M^-1 n = 1 (divided by `scale`), so the physical impulse is alpha / scale. 0 for a
  // contact the system dropped (static against static).
  py::array_t<double> lambda(m);
  for (py::ssize_t c = 0; c < m; ++c) {
    const int i = index[static_cast<std::size_t>(c)];
    lambda.mutable_at(c) = i < 0 ? 0.0 : impulse[i] / system.constraint(i).scale;
  }
  const Eigen::Vector3d p0 = system.linearMomentum(qdot0), p1 = system.linearMomentum(qdot);
  py::dict r;
  r["velocities"] = v;
  r["impulses"] = lambda;
  r["iterations"] = stats.iterations;
  r["converged"] = restitution == 0.0 ? true : stats.converged;
  r["energy_before"] = system.kineticEnergy(qdot0);
  r["energy_after"] = system.kineticEnergy(qdot);
  r["momentum_before"] = toArray(p0.data(), {3});
  r["momentum_after"] = toArray(p1.data(), {3});
  r["report"] = stats.report;
  return r;
}

}  // namespace

void bindImpact(py::module_& m) {
  m.def("impact_operators", [] { return impact::impactOperators().names(); },
        "Names of the registered impact operators.");
  m.def("resolve_impact", &resolve, py::arg("masses"), py::arg("velocities"), py::arg("contacts"),
        py::arg("normals") = py::none(), py::arg("positions") = py::none(), py::arg("restitution") = 1.0,
        py::arg("operator") = "gr", py::arg("epsilon") = 1e-10, py::arg("max_iterations") = 100000,
        R"(Resolves a simultaneous impact between balls (the impact module's resolver).

masses: (n,), np.inf for a static body; velocities: (n, 2) or (n, 3) before the impact;
contacts: (m, 2) int, the bodies a and b of each contact (-1 = the world); normals: (m, d) from a
towards b (None: from the centres, which then need positions: (n, d)). restitution: c_r in [0, 1]
(1 elastic, 0 perfectly inelastic). operator: an impact operator (impact_operators()).
Returns a dict: velocities (n, d) after, impulses (m,) along the unit normals, iterations,
converged, energy_before, energy_after, momentum_before, momentum_after, report.)");
}

}  // namespace kinema::python
