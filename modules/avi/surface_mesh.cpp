// Topology of triangle surface meshes (surface_mesh.hpp).
#include "modules/avi/surface_mesh.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {

// (min, max, face, position of the edge in the face: corners k, k + 1).
struct HalfEdge {
  int lo, hi, face, k;
  bool operator<(const HalfEdge& o) const {
    if (lo != o.lo) return lo < o.lo;
    if (hi != o.hi) return hi < o.hi;
    return face < o.face;
  }
};

std::vector<HalfEdge> halfEdges(const std::vector<Eigen::Vector3i>& faces) {
  std::vector<HalfEdge> h;
  h.reserve(3 * faces.size());
  for (std::size_t f = 0; f < faces.size(); ++f)
    for (int k = 0; k < 3; ++k) {
      const int u = faces[f][k], v = faces[f][(k + 1) % 3];
      h.push_back({std::min(u, v), std::max(u, v), static_cast<int>(f), k});
    }
  std::sort(h.begin(), h.end());
  return h;
}

// Calls fn(first, count) for every run of equal (lo, hi).
template <class Fn>
void forEachEdge(const std::vector<HalfEdge>& h, Fn&& fn) {
  for (std::size_t i = 0; i < h.size();) {
    std::size_t j = i;
    while (j < h.size() && h[j].lo == h[i].lo && h[j].hi == h[i].hi) ++j;
    fn(i, j - i);
    i = j;
  }
}

}  // namespace

std::vector<Eigen::Vector2i> meshEdges(const std::vector<Eigen::Vector3i>& faces) {
  std::vector<Eigen::Vector2i> out;
  const std::vector<HalfEdge> h = halfEdges(faces);
  forEachEdge(h, [&](std::size_t i, std::size_t) { out.emplace_back(h[i].lo, h[i].hi); });
  return out;
}

std::vector<Eigen::Vector2i> boundaryEdges(const std::vector<Eigen::Vector3i>& faces) {
  std::vector<Eigen::Vector2i> out;
  const std::vector<HalfEdge> h = halfEdges(faces);
  forEachEdge(h, [&](std::size_t i, std::size_t n) {
    if (n == 1) out.emplace_back(h[i].lo, h[i].hi);
  });
  return out;
}

std::vector<HingeStencil> meshHinges(const std::vector<Eigen::Vector3i>& faces, const std::string& source) {
  std::vector<HingeStencil> out;
  const std::vector<HalfEdge> h = halfEdges(faces);
  forEachEdge(h, [&](std::size_t i, std::size_t n) {
    if (n > 2)
      throw InputError(str(source, ": edge ", h[i].lo, "-", h[i].hi, " is shared by ", n,
                           " triangles; a shell needs a manifold surface (at most 2)"));
    if (n != 2) return;
    const Eigen::Vector3i& f0 = faces[static_cast<std::size_t>(h[i].face)];
    const Eigen::Vector3i& f1 = faces[static_cast<std::size_t>(h[i + 1].face)];
    const int k0 = h[i].k, k1 = h[i + 1].k;
    HingeStencil s;
    // Edge as it runs in the first triangle: (a, b, c) cyclic.
    s.a = f0[k0];
    s.b = f0[(k0 + 1) % 3];
    s.c = f0[(k0 + 2) % 3];
    s.d = f1[(k1 + 2) % 3];
    out.push_back(s);
  });
  return out;
}

bool isClosed(const std::vector<Eigen::Vector3i>& faces) {
  bool closed = !faces.empty();
  const std::vector<HalfEdge> h = halfEdges(faces);
  forEachEdge(h, [&](std::size_t, std::size_t n) { closed = closed && n == 2; });
  return closed;
}

bool consistentlyOriented(const std::vector<Eigen::Vector3i>& faces) {
  bool ok = true;
  const std::vector<HalfEdge> h = halfEdges(faces);
  forEachEdge(h, [&](std::size_t i, std::size_t n) {
    if (n != 2) return;
    const int from0 = faces[static_cast<std::size_t>(h[i].face)][h[i].k];
    const int from1 = faces[static_cast<std::size_t>(h[i + 1].face)][h[i + 1].k];
    ok = ok && from0 != from1;
  });
  return ok;
}

double triangleArea(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
  return 0.5 * (b - a).cross(c - a).norm();
}

double surfaceArea(const geometry::TriMesh& m) {
  double s = 0.0;
  for (const Eigen::Vector3i& f : m.faces) s += triangleArea(m.vertices[f[0]], m.vertices[f[1]], m.vertices[f[2]]);
  return s;
}

std::vector<double> vertexAreas(const geometry::TriMesh& m) {
  std::vector<double> a(m.vertices.size(), 0.0);
  for (const Eigen::Vector3i& f : m.faces) {
    const double third = triangleArea(m.vertices[f[0]], m.vertices[f[1]], m.vertices[f[2]]) / 3.0;
    for (int k = 0; k < 3; ++k) a[static_cast<std::size_t>(f[k])] += third;
  }
  return a;
}

void appendMesh(geometry::TriMesh& mesh, const geometry::TriMesh& part) {
  const int base = static_cast<int>(mesh.vertices.size());
  mesh.vertices.insert(mesh.vertices.end(), part.vertices.begin(), part.vertices.end());
  for (const Eigen::Vector3i& f : part.faces) mesh.faces.emplace_back(f.array() + base);
}

void rigidTransform(geometry::TriMesh& mesh, const Eigen::Matrix3d& R, const Eigen::Vector3d& t) {
  for (Eigen::Vector3d& x : mesh.vertices) x = R * x + t;
}

}  // namespace kinema::avi
