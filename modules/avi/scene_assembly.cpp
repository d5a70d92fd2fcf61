// Building blocks shared by the scene generators (scene_assembly.hpp).
#include "modules/avi/scene_assembly.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {

// Largest eigenvalue of M^-1/2 D M^-1/2, D = -d(dampingForce)/dv at the stencil's positions
// (the damping force is linear in v).
double dampingRate(const ForceElement& e, const Vec3* x, const double* masses) {
  if (e.damping == 0.0) return 0.0;
  const int n = e.n, dof = 3 * n;
  Eigen::MatrixXd D(dof, dof);
  Vec3 v[4], f[4];
  for (int i = 0; i < dof; ++i) {
    for (int a = 0; a < n; ++a) v[a].setZero();
    v[i / 3][i % 3] = 1.0;
    dampingForce(e, x, v, f);
    for (int a = 0; a < n; ++a) D.block<3, 1>(3 * a, i) = -f[a];
  }
  Eigen::VectorXd s(dof);
  for (int i = 0; i < dof; ++i) s(i) = 1.0 / std::sqrt(masses[i / 3]);
  const Eigen::MatrixXd A = s.asDiagonal() * (0.5 * (D + D.transpose())) * s.asDiagonal();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A, Eigen::EigenvaluesOnly);
  return std::max(0.0, eig.eigenvalues().maxCoeff());
}

}  // namespace

void assignStep(ForceElement& e, const Scene& scene, const StepRule& rule) {
  if (rule.fixed > 0.0) {
    e.h = rule.fixed;
    return;
  }
  double masses[4];
  Vec3 x[4];
  for (int a = 0; a < e.n; ++a) {
    masses[a] = scene.vertices.mass[e.v[a]];
    x[a] = scene.vertices.x[e.v[a]];
  }
  double h = stableStep(e, masses, rule.cSafe);
  const double lambda = dampingRate(e, x, masses);
  if (lambda > 0.0) h = std::min(h, rule.cSafe * 2.0 / lambda);
  if (!(h > 0.0) || !std::isfinite(h))
    throw InputError(str("avi scene: no finite stable step for a material potential on vertices ", e.v[0], ", ",
                         e.v[1], "; set the scene's material_step"));
  e.h = h;
}

int beginObject(Scene& scene, const std::string& name) {
  ObjectInfo o;
  o.name = name;
  o.firstVertex = scene.vertices.size();
  scene.objects.push_back(o);
  return static_cast<int>(scene.objects.size()) - 1;
}

void reserveVertices(Scene& scene, std::size_t vertices, std::size_t objects) {
  Vertices& V = scene.vertices;
  const std::size_t n = V.x.size() + vertices;
  V.x.reserve(n);
  V.v.reserve(n);
  V.t.reserve(n);
  V.mass.reserve(n);
  V.minv.reserve(n);
  V.object.reserve(n);
  scene.isolated.reserve(n);
  scene.objects.reserve(scene.objects.size() + objects);
}

int addVertex(Scene& scene, const Vec3& x, const Vec3& v, double mass, bool scripted) {
  if (scene.objects.empty()) beginObject(scene, "object");
  if (!(mass > 0.0) || !std::isfinite(mass))
    throw InputError(str("avi scene: vertex ", scene.vertices.size(), " of ", scene.objects.back().name,
                         " gets mass ", mass, " (need > 0)"));
  Vertices& V = scene.vertices;
  V.x.push_back(x);
  V.v.push_back(v);
  V.t.push_back(0.0);
  V.mass.push_back(mass);
  V.minv.push_back(scripted ? 0.0 : 1.0 / mass);
  V.object.push_back(static_cast<std::int32_t>(scene.objects.size()) - 1);
  scene.isolated.push_back(0);
  scene.objects.back().numVertices = V.size() - scene.objects.back().firstVertex;
  return V.size() - 1;
}

void endObject(Scene& scene) {
  if (!scene.objects.empty()) scene.objects.back().numVertices = scene.vertices.size() - scene.objects.back().firstVertex;
}

void addGravity(Scene& scene, const Vec3& g, double step, double fallback) {
  scene.gravity = g;
  if (g.squaredNorm() == 0.0) return;
  const int n = scene.vertices.size();
  std::vector<double> hmin(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
  std::vector<std::uint8_t> has(static_cast<std::size_t>(n), 0);
  for (const ForceElement& e : scene.forces) {
    if (e.kind == ForceKind::Gravity) {
      has[e.v[0]] = 1;
      continue;
    }
    for (int a = 0; a < e.n; ++a) hmin[e.v[a]] = std::min(hmin[e.v[a]], e.h);
  }
  std::size_t more = 0;
  for (int a = 0; a < n; ++a) more += !(scene.vertices.scripted(a) || has[a]);
  scene.forces.reserve(scene.forces.size() + more);  // one growth to the exact size
  for (int a = 0; a < n; ++a) {
    if (scene.vertices.scripted(a) || has[a]) continue;
    ForceElement e = makeGravity(a, scene.vertices.mass[a], g);
    e.h = step > 0.0 ? step : (std::isfinite(hmin[a]) ? hmin[a] : fallback);
    if (!(e.h > 0.0) || !std::isfinite(e.h))
      throw InputError(str("avi scene: no gravity step for vertex ", a, "; set the scene's gravity_step"));
    scene.forces.push_back(e);
  }
}

void addScript(Scene& scene, const std::string& name, const std::vector<std::int32_t>& vertices,
               const std::vector<double>& times, const std::vector<Vec3>& velocities) {
  Script s;
  s.name = name;
  s.vertices = vertices;
  s.times = times;
  s.velocities = velocities;
  for (std::size_t k = 0; k < times.size(); ++k)
    if (times[k] <= 0.0)
      for (std::int32_t a : vertices) scene.vertices.v[a] = velocities[k];
  scene.scripts.push_back(std::move(s));
}

}  // namespace kinema::avi
