#include "modules/impact/scenes.hpp"

#include <cmath>
#include <random>

#include "framework/core/error.hpp"

namespace kinema::impact::scenes {

Scene chain(const std::vector<double>& masses, const std::vector<double>& vx) {
  if (masses.size() != vx.size())
    throw InputError(str("chain scene: ", masses.size(), " masses but ", vx.size(), " velocities"));
  Scene s;
  const int b = static_cast<int>(masses.size());
  for (int i = 0; i < b; ++i) s.system.addBall2D(masses[i], Eigen::Vector2d(2.0 * i, 0.0));
  for (int i = 0; i + 1 < b; ++i) s.system.addBallBall(i, i + 1);
  s.qdot.setZero(2 * b);
  for (int i = 0; i < b; ++i) s.qdot[2 * i] = vx[i];
  return s;
}

Scene chain(const std::vector<double>& vx) { return chain(std::vector<double>(vx.size(), 1.0), vx); }

Eigen::VectorXd xComponents(const Eigen::VectorXd& qdot) {
  Eigen::VectorXd x(qdot.size() / 2);
  for (int i = 0; i < x.size(); ++i) x[i] = qdot[2 * i];
  return x;
}

Scene wedge(double theta) {
  Scene s;
  const int ball = s.system.addBall2D(1.0);
  s.system.addConstraint(ball, Eigen::Vector2d(0.0, 1.0));
  s.system.addConstraint(ball, Eigen::Vector2d(std::sin(theta), -std::cos(theta)));
  s.qdot = -Eigen::Vector2d(std::cos(theta / 2), std::sin(theta / 2));
  return s;
}

Scene parallelWalls() {
  Scene s;
  const int ball = s.system.addBall2D(1.0, Eigen::Vector2d(1.0, 0.0));
  s.system.addWall(ball, Eigen::Vector3d(1.0, 0.0, 0.0));
  s.system.addWall(ball, Eigen::Vector3d(-1.0, 0.0, 0.0));
  s.qdot = Eigen::Vector2d(1.0, 0.5);
  return s;
}

Scene twoBallsBetweenWalls() {
  Scene s;
  const int a = s.system.addBall2D(1.0, Eigen::Vector2d(1.0, 0.0));
  const int b = s.system.addBall2D(1.0, Eigen::Vector2d(3.0, 0.0));
  s.system.addWall(a, Eigen::Vector3d(1.0, 0.0, 0.0));
  s.system.addBallBall(a, b);
  s.system.addWall(b, Eigen::Vector3d(-1.0, 0.0, 0.0));
  s.qdot.resize(4);
  s.qdot << 1.0, 0.3, 0.0, -0.2;
  return s;
}

Scene corner() {
  Scene s;
  const int ball = s.system.addBall2D(1.0);
  s.system.addConstraint(ball, Eigen::Vector2d(0.0, 1.0));
  s.system.addConstraint(ball, Eigen::Vector2d(-1.0, 0.0));
  s.qdot = Eigen::Vector2d(2.0, -1.0);
  return s;
}

Scene hexCluster19(unsigned seed) {
  Scene s;
  const int rows[5] = {3, 4, 5, 4, 3};
  std::vector<Eigen::Vector2d> centres;
  for (int r = 0; r < 5; ++r)
    for (int k = 0; k < rows[r]; ++k)
      centres.emplace_back(2.0 * k - (rows[r] - 1), std::sqrt(3.0) * (r - 2));
  for (const auto& c : centres) s.system.addBall2D(1.0, c);
  for (std::size_t i = 0; i < centres.size(); ++i)
    for (std::size_t j = i + 1; j < centres.size(); ++j)
      if ((centres[i] - centres[j]).norm() < 2.0 + 1e-9) s.system.addBallBall(int(i), int(j));
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  s.qdot.resize(s.system.dofs());
  for (int i = 0; i < s.qdot.size(); ++i) s.qdot[i] = g(rng);
  return s;
}

Scene hexPatch(int rows, int cols, unsigned seed) {
  if (rows < 1 || cols < 1) throw InputError(str("hex patch scene: rows and cols must be >= 1, got ", rows, ", ", cols));
  Scene s;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) s.system.addBall2D(1.0, Eigen::Vector2d(2.0 * c + (r % 2), std::sqrt(3.0) * r));
  // Neighbours: same row c+1; next row c and c−1 (even rows) or c and c+1 (odd rows).
  auto id = [cols](int r, int c) { return r * cols + c; };
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (c + 1 < cols) s.system.addBallBall(id(r, c), id(r, c + 1));
      if (r + 1 < rows) {
        const int c2 = r % 2 == 0 ? c - 1 : c + 1;
        s.system.addBallBall(id(r, c), id(r + 1, c));
        if (c2 >= 0 && c2 < cols) s.system.addBallBall(id(r, c), id(r + 1, c2));
      }
    }
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  s.qdot.resize(s.system.dofs());
  for (int i = 0; i < s.qdot.size(); ++i) s.qdot[i] = g(rng);
  return s;
}

Scene miniGeyser(bool symmetric, double rightWall) {
  Scene s;
  auto& sys = s.system;
  const int A = sys.addBall2D(1.0, Eigen::Vector2d(1.0, 0.0));
  const int B = sys.addBall2D(1.0, Eigen::Vector2d(3.0, 0.0));
  const double ang = 20.0 * M_PI / 180.0;
  const Eigen::Vector2d cPos = symmetric ? Eigen::Vector2d(2.0, -std::sqrt(3.0))
                                         : Eigen::Vector2d(1.0 - 2.0 * std::sin(ang), -2.0 * std::cos(ang));
  const int C = sys.addBall2D(1.0, cPos);
  sys.addWall(A, Eigen::Vector3d(1.0, 0.0, 0.0));
  sys.addBallBall(A, B);
  if (std::abs(rightWall - 4.0) < 1e-12) sys.addWall(B, Eigen::Vector3d(-1.0, 0.0, 0.0));
  sys.addBallBall(A, C);
  if ((sys.body(B).position - sys.body(C).position).norm() < 2.0 + 1e-9) sys.addBallBall(B, C);
  s.qdot.setZero(6);
  s.qdot[5] = 1.0;
  return s;
}

Scene randomRigid(int bodies, int contacts, unsigned seed, bool withStatic) {
  Scene s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), pos(0.5, 2.0);
  for (int b = 0; b < bodies; ++b) {
    const double mass = pos(rng);
    Eigen::Matrix3d R = Eigen::Quaterniond(Eigen::Vector4d(u(rng), u(rng), u(rng), u(rng)).normalized()).toRotationMatrix();
    Eigen::Vector3d diag(pos(rng), pos(rng), pos(rng));
    Eigen::Matrix3d I = R * diag.asDiagonal() * R.transpose();
    I = 0.5 * (I + I.transpose());
    s.system.addRigidBody(mass, I, Eigen::Vector3d(3.0 * b, u(rng), u(rng)));
  }
  const int ground = withStatic ? s.system.addStatic() : -1;
  std::uniform_int_distribution<int> pick(0, bodies - 1);
  for (int k = 0; k < contacts; ++k) {
    int a = pick(rng), b = pick(rng);
    if (withStatic && k % 3 == 0) a = ground;
    else if (a == b) b = (a + 1) % bodies;
    const Eigen::Vector3d pa = a >= 0 ? s.system.body(a).position : Eigen::Vector3d::Zero();
    const Eigen::Vector3d pb = s.system.body(b).position;
    const Eigen::Vector3d p = 0.5 * (pa + pb) + 0.5 * Eigen::Vector3d(u(rng), u(rng), u(rng));
    s.system.addContact(a, b, p, Eigen::Vector3d(u(rng), u(rng), u(rng)));
  }
  s.qdot.resize(s.system.dofs());
  for (int i = 0; i < s.qdot.size(); ++i) s.qdot[i] = u(rng);
  return s;
}

Scene randomBalls2D(int balls, int contacts, int walls, unsigned seed) {
  Scene s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), mass(0.5, 3.0);
  for (int b = 0; b < balls; ++b) s.system.addBall2D(mass(rng), Eigen::Vector2d(u(rng), u(rng)));
  std::uniform_int_distribution<int> pick(0, balls - 1);
  for (int k = 0; k < contacts; ++k) {
    const int a = pick(rng);
    int b = pick(rng);
    if (a == b) b = (a + 1) % balls;
    s.system.addContact(a, b, Eigen::Vector3d::Zero(), Eigen::Vector3d(u(rng), u(rng), 0.0));
  }
  for (int k = 0; k < walls; ++k) s.system.addWall(pick(rng), Eigen::Vector3d(u(rng), u(rng), 0.0));
  s.qdot.resize(s.system.dofs());
  for (int i = 0; i < s.qdot.size(); ++i) s.qdot[i] = u(rng);
  return s;
}

// L11 jammed box (README decision 19): n x n unit balls r = 1 at (1 + 2i, 1 + 2j) filling [0, 2n]^2, each
// touching its neighbours and the walls; seeded Gaussian velocities.
Scene jammedBox(int n, unsigned seed) {
  Scene s;
  ImpactSystem& sys = s.system;
  std::vector<int> id(static_cast<std::size_t>(n * n));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) id[static_cast<std::size_t>(n * j + i)] = sys.addBall2D(1.0, Eigen::Vector2d(1 + 2 * i, 1 + 2 * j));
  auto at = [&](int i, int j) { return id[static_cast<std::size_t>(n * j + i)]; };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (i + 1 < n) sys.addBallBall(at(i, j), at(i + 1, j));
      if (j + 1 < n) sys.addBallBall(at(i, j), at(i, j + 1));
    }
  for (int k = 0; k < n; ++k) {
    sys.addWall(at(0, k), {1, 0, 0});
    sys.addWall(at(n - 1, k), {-1, 0, 0});
    sys.addWall(at(k, 0), {0, 1, 0});
    sys.addWall(at(k, n - 1), {0, -1, 0});
  }
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  s.qdot.resize(sys.dofs());
  for (Eigen::Index k = 0; k < s.qdot.size(); ++k) s.qdot[k] = g(rng);
  return s;
}

}  // namespace kinema::impact::scenes
