// Newton on (R^3 x S^3)^n written once over the abstract layer: the same alignment problem on every
// backend, with the particles spread over 1, 2 or 3 ranks on petsc and trilinos, converges to the
// known rotations with unit quaternions after every step.
#include <gtest/gtest.h>

#include "framework/solvers/newton.hpp"
#include "rigid_test_problems.hpp"

namespace kinema::test {
namespace {

using solvers::NewtonOptions;
using solvers::NewtonSolver;
using solvers::NewtonStats;

class NewtonOnBackend : public BackendTest {};

TEST_P(NewtonOnBackend, AlignmentOverRanksRecoversRotations) {
  const GlobalIndex n = 90;
  auto pmap = uniform(n, 7);  // world on distributed backends, this rank alone otherwise
  const GlobalIndex begin = pmap->ownedBegin();
  const int local = static_cast<int>(pmap->ownedBlocks());
  std::vector<Vec4> qs, q0;
  for (int a = 0; a < local; ++a) {
    const double t = 0.37 * static_cast<double>(begin + a);
    qs.push_back(unitQuat(std::sin(t), std::cos(1.3 * t), 0.5 + std::sin(2.1 * t), 0.3 + std::fmod(0.71 * t, 2.5)));
    q0.push_back(RigidManifold::multiply(unitQuat(std::cos(t), 1.0, std::sin(0.5 * t), 0.9), qs.back()));
  }
  Alignment prob(qs, {Vec3(1, 0, 0), Vec3(0, 1, 0.5), Vec3(0.2, -0.3, 1)}, begin, pmap->comm());
  auto x = backend->createVector(pmap);
  {
    la::Vector::View w = x->view();
    for (int a = 0; a < local; ++a) {
      for (int i = 0; i < 3; ++i) w[7 * a + i] = 1.0 + i;
      for (int i = 0; i < 4; ++i) w[7 * a + 3 + i] = q0[static_cast<std::size_t>(a)][i];
    }
  }
  RigidManifold M;
  NewtonOptions o;
  o.gtolAbs = 1e-9;
  o.psdFloor = 1e-6;
  o.linear.type = "cg";
  o.linear.preconditioner = "jacobi";
  NewtonSolver newton(*backend, M, o);
  double unitError = 0;
  newton.setObserver([&](int, const la::Vector& xk, const NewtonStats&) {
    la::Vector::ConstView r = xk.view();
    for (int a = 0; a < local; ++a)
      unitError = std::max(unitError, std::abs(Eigen::Map<const Vec4>(r.data() + 7 * a + 3).norm() - 1.0));
  });
  NewtonStats st = newton.solve(prob, *x);
  ASSERT_TRUE(st.converged) << GetParam() << ": " << st.reason;
  EXPECT_LE(st.iterations, 15) << GetParam();
  EXPECT_LE(pmap->comm().max(unitError), 1e-12) << GetParam();
  la::Vector::ConstView r = x->constView();
  double err = 0;
  for (int a = 0; a < local; ++a) {
    const Vec4 q = Eigen::Map<const Vec4>(r.data() + 7 * a + 3);
    const Vec4& t = qs[static_cast<std::size_t>(a)];
    err = std::max(err, std::min((q - t).norm(), (q + t).norm()));
  }
  EXPECT_LT(pmap->comm().max(err), 1e-9) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, NewtonOnBackend, ::testing::ValuesIn(backendNames()), paramName);

}  // namespace
}  // namespace kinema::test
