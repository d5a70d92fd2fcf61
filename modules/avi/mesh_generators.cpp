// Generators of triangle surface meshes (mesh_generators.hpp).
#include "modules/avi/mesh_generators.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {

using Vec3d = Eigen::Vector3d;
using geometry::TriMesh;

void requirePositive(double x, const char* what, const char* gen) {
  if (!(x > 0.0) || !std::isfinite(x)) throw InputError(str(gen, ": ", what, " must be positive and finite (got ", x, ")"));
}
void requireAtLeast(int n, int lo, const char* what, const char* gen) {
  if (n < lo) throw InputError(str(gen, ": ", what, " must be at least ", lo, " (got ", n, ")"));
}

double signedVolume(const TriMesh& m) {
  double v = 0.0;
  for (const Eigen::Vector3i& f : m.faces) v += m.vertices[f[0]].dot(m.vertices[f[1]].cross(m.vertices[f[2]]));
  return v / 6.0;
}

void flipAll(TriMesh& m) {
  for (Eigen::Vector3i& f : m.faces) std::swap(f[1], f[2]);
}

// A closed mesh made to face outward (positive signed volume).
void orientOutward(TriMesh& m) {
  if (signedVolume(m) < 0.0) flipAll(m);
}

// Triangles of a convex polyhedron whose faces are all triangles (tetrahedron, octahedron,
// icosahedron): every triple of vertices with all others on one side, oriented outward.
void convexHullTriangles(TriMesh& m) {
  const int n = static_cast<int>(m.vertices.size());
  double scale = 0.0;
  for (const Vec3d& x : m.vertices) scale = std::max(scale, x.norm());
  const double tol = 1e-9 * scale * scale * scale;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        const Vec3d& a = m.vertices[i];
        const Vec3d nrm = (m.vertices[j] - a).cross(m.vertices[k] - a);
        int pos = 0, neg = 0;
        for (int l = 0; l < n; ++l) {
          if (l == i || l == j || l == k) continue;
          const double s = nrm.dot(m.vertices[l] - a);
          if (s > tol) ++pos;
          if (s < -tol) ++neg;
        }
        if (pos > 0 && neg > 0) continue;
        // All others on the negative side means the normal points outward.
        if (pos == 0)
          m.faces.emplace_back(i, j, k);
        else
          m.faces.emplace_back(i, k, j);
      }
}

TriMesh icosahedron() {
  const double phi = (1.0 + std::sqrt(5.0)) / 2.0;
  TriMesh m;
  for (double s1 : {-1.0, 1.0})
    for (double s2 : {-1.0, 1.0}) {
      m.vertices.emplace_back(0.0, s1, s2 * phi);
      m.vertices.emplace_back(s1, s2 * phi, 0.0);
      m.vertices.emplace_back(s2 * phi, 0.0, s1);
    }
  convexHullTriangles(m);
  return m;
}


}  // namespace

TriMesh gridMesh(double lx, double ly, int nx, int ny) {
  requirePositive(lx, "length x", "grid mesh");
  requirePositive(ly, "length y", "grid mesh");
  requireAtLeast(nx, 1, "cells along x", "grid mesh");
  requireAtLeast(ny, 1, "cells along y", "grid mesh");
  TriMesh m;
  m.source = "grid";
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) m.vertices.emplace_back(lx * i / nx, ly * j / ny, 0.0);
  auto id = [&](int i, int j) { return j * (nx + 1) + i; };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int p00 = id(i, j), p10 = id(i + 1, j), p11 = id(i + 1, j + 1), p01 = id(i, j + 1);
      if ((i + j) % 2 == 0) {
        m.faces.emplace_back(p00, p10, p11);
        m.faces.emplace_back(p00, p11, p01);
      } else {
        m.faces.emplace_back(p00, p10, p01);
        m.faces.emplace_back(p10, p11, p01);
      }
    }
  return m;
}

TriMesh icosphere(double radius, int nu) {
  requirePositive(radius, "radius", "icosphere");
  requireAtLeast(nu, 1, "frequency nu", "icosphere");
  const TriMesh ico = icosahedron();
  TriMesh m;
  m.source = "icosphere";
  // A point of the subdivision is sum_v w_v P_v / nu over at most 3 icosahedron vertices with
  // integer weights; keyed by its sorted (vertex, weight) list so points on shared edges merge
  // and get bit-identical coordinates.
  std::map<std::array<int, 6>, int> index;
  auto point = [&](std::array<std::pair<int, int>, 3> w) {
    std::sort(w.begin(), w.end());
    std::array<int, 6> key{-1, 0, -1, 0, -1, 0};
    int n = 0;
    for (const auto& [v, wt] : w)
      if (wt > 0) {
        key[2 * n] = v;
        key[2 * n + 1] = wt;
        ++n;
      }
    auto [it, inserted] = index.emplace(key, static_cast<int>(m.vertices.size()));
    if (inserted) {
      Vec3d x = Vec3d::Zero();
      for (int q = 0; q < n; ++q) x += key[2 * q + 1] * ico.vertices[key[2 * q]];
      m.vertices.push_back(radius * x.normalized());
    }
    return it->second;
  };
  for (const Eigen::Vector3i& f : ico.faces) {
    // Lattice (i, j): weights (nu - i - j, i, j) on corners (f0, f1, f2).
    auto at = [&](int i, int j) {
      return point({std::pair{f[0], nu - i - j}, std::pair{f[1], i}, std::pair{f[2], j}});
    };
    for (int j = 0; j < nu; ++j)
      for (int i = 0; i + j < nu; ++i) {
        m.faces.emplace_back(at(i, j), at(i + 1, j), at(i, j + 1));
        if (i + j + 1 < nu) m.faces.emplace_back(at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
      }
  }
  orientOutward(m);
  return m;
}

TriMesh discMesh(double radius, int rings) {
  requirePositive(radius, "radius", "disc mesh");
  requireAtLeast(rings, 1, "rings", "disc mesh");
  TriMesh m;
  m.source = "disc";
  m.vertices.emplace_back(0.0, 0.0, 0.0);
  int prevStart = 0, prevCount = 1;
  for (int r = 1; r <= rings; ++r) {
    const int start = static_cast<int>(m.vertices.size()), count = 6 * r;
    const double rad = radius * r / rings;
    for (int k = 0; k < count; ++k) {
      const double a = 2.0 * std::numbers::pi * k / count;
      m.vertices.emplace_back(rad * std::cos(a), rad * std::sin(a), 0.0);
    }
    if (r == 1) {
      for (int k = 0; k < count; ++k) m.faces.emplace_back(0, start + k, start + (k + 1) % count);
    } else {
      // Zip the rings by angle (integer comparison of (i + 1) / inner vs (o + 1) / outer).
      int ia = 0, ib = 0;
      while (ia < prevCount || ib < count) {
        const bool outer = ib < count && (ia == prevCount || static_cast<long>(ib + 1) * prevCount <=
                                                                 static_cast<long>(ia + 1) * count);
        const int a = prevStart + ia % prevCount, b = start + ib % count;
        if (outer) {
          m.faces.emplace_back(a, b, start + (ib + 1) % count);
          ++ib;
        } else {
          m.faces.emplace_back(a, b, prevStart + (ia + 1) % prevCount);
          ++ia;
        }
      }
    }
    prevStart = start;
    prevCount = count;
  }
  return m;
}

TriMesh prismShell(double base, double height, double length, int segments, int sideDivisions) {
  requirePositive(base, "base width", "prism shell");
  requirePositive(height, "height", "prism shell");
  requirePositive(length, "length", "prism shell");
  requireAtLeast(segments, 1, "segments along the length", "prism shell");
  requireAtLeast(sideDivisions, 1, "divisions per side", "prism shell");
  const int s = sideDivisions, ring = 3 * s;
  const std::array<Eigen::Vector2d, 3> corner{Eigen::Vector2d(-base / 2, 0.0), Eigen::Vector2d(base / 2, 0.0),
                                              Eigen::Vector2d(0.0, height)};
  std::vector<Eigen::Vector2d> section;  // (x, z) around the cross section
  for (int side = 0; side < 3; ++side)
    for (int q = 0; q < s; ++q)
      section.push_back(corner[side] + (corner[(side + 1) % 3] - corner[side]) * (static_cast<double>(q) / s));
  TriMesh m;
  m.source = "prism";
  for (int j = 0; j <= segments; ++j)
    for (const Eigen::Vector2d& p : section) m.vertices.emplace_back(p[0], length * j / segments, p[1]);
  const Eigen::Vector2d c = (corner[0] + corner[1] + corner[2]) / 3.0;
  const int c0 = static_cast<int>(m.vertices.size());
  m.vertices.emplace_back(c[0], 0.0, c[1]);
  const int cL = c0 + 1;
  m.vertices.emplace_back(c[0], length, c[1]);
  auto id = [&](int k, int j) { return j * ring + (k % ring); };
  for (int j = 0; j < segments; ++j)
    for (int k = 0; k < ring; ++k) {
      m.faces.emplace_back(id(k, j), id(k + 1, j), id(k + 1, j + 1));
      m.faces.emplace_back(id(k, j), id(k + 1, j + 1), id(k, j + 1));
    }
  for (int k = 0; k < ring; ++k) {
    m.faces.emplace_back(c0, id(k + 1, 0), id(k, 0));
    m.faces.emplace_back(cL, id(k, segments), id(k + 1, segments));
  }
  orientOutward(m);
  return m;
}

TriMesh spikeMesh(double height, double apexAngleDeg) {
  requirePositive(height, "height", "spike");
  if (!(apexAngleDeg > 0.0 && apexAngleDeg < 60.0))
    throw InputError(str("spike: apex angle must be in (0, 60) degrees (got ", apexAngleDeg, ")"));
  const double sh = std::sin(0.5 * apexAngleDeg * std::numbers::pi / 180.0);
  const double side = 2.0 * height * sh / std::sqrt(1.0 - 4.0 * sh * sh);  // hexagon side = circumradius
  TriMesh m;
  m.source = "spike";
  for (int k = 0; k < 6; ++k) {
    const double a = std::numbers::pi * k / 3.0;
    m.vertices.emplace_back(side * std::cos(a), side * std::sin(a), 0.0);
  }
  m.vertices.emplace_back(0.0, 0.0, height);
  for (int k = 0; k < 6; ++k) m.faces.emplace_back(k, (k + 1) % 6, 6);
  return m;
}

TriMesh torusMesh(double R, double r, int nMajor, int nMinor) {
  requirePositive(R, "major radius", "torus");
  requirePositive(r, "tube radius", "torus");
  if (!(r < R)) throw InputError(str("torus: tube radius ", r, " must be below the major radius ", R));
  requireAtLeast(nMajor, 3, "segments around the axis", "torus");
  requireAtLeast(nMinor, 3, "segments around the tube", "torus");
  TriMesh m;
  m.source = "torus";
  for (int i = 0; i < nMajor; ++i)
    for (int j = 0; j < nMinor; ++j) {
      const double u = 2.0 * std::numbers::pi * i / nMajor, v = 2.0 * std::numbers::pi * j / nMinor;
      m.vertices.emplace_back((R + r * std::cos(v)) * std::cos(u), (R + r * std::cos(v)) * std::sin(u), r * std::sin(v));
    }
  auto id = [&](int i, int j) { return (i % nMajor) * nMinor + (j % nMinor); };
  for (int i = 0; i < nMajor; ++i)
    for (int j = 0; j < nMinor; ++j) {
      m.faces.emplace_back(id(i, j), id(i + 1, j), id(i + 1, j + 1));
      m.faces.emplace_back(id(i, j), id(i + 1, j + 1), id(i, j + 1));
    }
  orientOutward(m);
  return m;
}

TriMesh platonicSolid(const std::string& name, double radius) {
  requirePositive(radius, "radius", "platonic solid");
  TriMesh m;
  m.source = name;
  if (name == "tetrahedron") {
    m.vertices = {Vec3d(1, 1, 1), Vec3d(1, -1, -1), Vec3d(-1, 1, -1), Vec3d(-1, -1, 1)};
    convexHullTriangles(m);
  } else if (name == "octahedron") {
    for (int k = 0; k < 3; ++k)
      for (double s : {-1.0, 1.0}) m.vertices.push_back(s * Vec3d::Unit(k));
    convexHullTriangles(m);
  } else if (name == "icosahedron") {
    m = icosahedron();
    m.source = name;
  } else if (name == "cube") {
    for (int k = 0; k < 8; ++k) m.vertices.emplace_back(k & 1 ? 1.0 : -1.0, k & 2 ? 1.0 : -1.0, k & 4 ? 1.0 : -1.0);
    // Faces as quads (corner bit patterns), split along a diagonal.
    const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& q : quads) {
      m.faces.emplace_back(q[0], q[1], q[2]);
      m.faces.emplace_back(q[0], q[2], q[3]);
    }
  } else if (name == "dodecahedron") {
    // The dual of the icosahedron: one vertex per icosahedron face (its centroid direction), one
    // pentagon per icosahedron vertex, fanned from the pentagon's centre.
    const TriMesh ico = icosahedron();
    for (const Eigen::Vector3i& f : ico.faces)
      m.vertices.push_back((ico.vertices[f[0]] + ico.vertices[f[1]] + ico.vertices[f[2]]).normalized());
    for (std::size_t v = 0; v < ico.vertices.size(); ++v) {
      std::vector<int> ring;
      for (std::size_t f = 0; f < ico.faces.size(); ++f)
        if ((ico.faces[f].array() == static_cast<int>(v)).any()) ring.push_back(static_cast<int>(f));
      const Vec3d axis = ico.vertices[v].normalized();
      const Vec3d e1 = (m.vertices[ring[0]] - axis * axis.dot(m.vertices[ring[0]])).normalized();
      const Vec3d e2 = axis.cross(e1);
      std::sort(ring.begin(), ring.end(), [&](int a, int b) {
        return std::atan2(m.vertices[a].dot(e2), m.vertices[a].dot(e1)) <
               std::atan2(m.vertices[b].dot(e2), m.vertices[b].dot(e1));
      });
      Vec3d centre = Vec3d::Zero();
      for (int q : ring) centre += m.vertices[q];
      const int c = static_cast<int>(m.vertices.size());
      m.vertices.push_back(centre / static_cast<double>(ring.size()));
      for (std::size_t q = 0; q < ring.size(); ++q) m.faces.emplace_back(c, ring[q], ring[(q + 1) % ring.size()]);
    }
  } else {
    throw InputError(str("platonic solid '", name, "': choose tetrahedron, cube, octahedron, icosahedron or dodecahedron"));
  }
  double rmax = 0.0;
  for (const Vec3d& x : m.vertices) rmax = std::max(rmax, x.norm());
  for (Vec3d& x : m.vertices) x *= radius / rmax;
  orientOutward(m);
  return m;
}

TriMesh wallTube(double x0, double x1, double y0, double y1, double height) {
  if (!(x1 > x0) || !(y1 > y0)) throw InputError(str("wall tube: need x1 > x0 and y1 > y0"));
  requirePositive(height, "height", "wall tube");
  TriMesh m;
  m.source = "walls";
  const double xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
  for (double z : {0.0, height})
    for (int k = 0; k < 4; ++k) m.vertices.emplace_back(xs[k], ys[k], z);
  for (int k = 0; k < 4; ++k) {
    const int a = k, b = (k + 1) % 4;
    m.faces.emplace_back(a, b + 4, b);
    m.faces.emplace_back(a, a + 4, b + 4);
  }
  return m;
}

}  // namespace kinema::avi
