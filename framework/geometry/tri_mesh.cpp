#include "framework/geometry/tri_mesh.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <utility>

#include "framework/core/error.hpp"

namespace kinema::geometry {

namespace {

using Vec3d = Eigen::Vector3d;

// Splits a line at blanks (spaces and tabs).
void tokens(const std::string& line, std::vector<std::string>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
}

bool parseReal(const std::string& s, double& x) {
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(b, e, x);
  return ec == std::errc() && ptr == e && std::isfinite(x);
}

}  // namespace

Vec3d TriMesh::lower() const {
  Vec3d lo = Vec3d::Constant(std::numeric_limits<double>::infinity());
  for (const Vec3d& v : vertices) lo = lo.cwiseMin(v);
  return lo;
}

Vec3d TriMesh::upper() const {
  Vec3d hi = Vec3d::Constant(-std::numeric_limits<double>::infinity());
  for (const Vec3d& v : vertices) hi = hi.cwiseMax(v);
  return hi;
}

double TriMesh::windingNumber(const Vec3d& x) const {
  // Solid angle of triangle (a, b, c) seen from x (van Oosterom and Strackee 1983):
  //   tan(Omega/2) = a.(b x c) / (|a||b||c| + (a.b)|c| + (b.c)|a| + (c.a)|b|),  a, b, c relative to x.
  double sum = 0.0;
  for (const Eigen::Vector3i& f : faces) {
    const Vec3d a = vertices[static_cast<std::size_t>(f[0])] - x;
    const Vec3d b = vertices[static_cast<std::size_t>(f[1])] - x;
    const Vec3d c = vertices[static_cast<std::size_t>(f[2])] - x;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double num = a.dot(b.cross(c));
    const double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    sum += 2.0 * std::atan2(num, den);
  }
  return sum / (4.0 * std::numbers::pi);
}

bool TriMesh::inside(const Vec3d& x) const { return std::abs(windingNumber(x)) > 0.5; }

double TriMesh::volume() const {
  double v = 0.0;
  for (const Eigen::Vector3i& f : faces)
    v += vertices[static_cast<std::size_t>(f[0])].dot(
        vertices[static_cast<std::size_t>(f[1])].cross(vertices[static_cast<std::size_t>(f[2])]));
  return v / 6.0;
}

void TriMesh::transform(double scale, const Vec3d& translation) {
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    Vec3d& v = vertices[i];
    const Vec3d before = v;
    v = scale * v + translation;
    if (!(v.cwiseAbs().maxCoeff() <= kMaxCoordinate))
      throw InputError(str(source, ": vertex ", i + 1, " (", before.transpose(), ") scaled by ", scale,
                           " and translated by (", translation.transpose(), ") lands at (", v.transpose(),
                           "), beyond the +-", kMaxCoordinate, " a mesh coordinate may have; check the scale"));
  }
}

TriMesh parseObj(const std::string& text, const std::string& sourceName) {
  TriMesh mesh;
  mesh.source = sourceName;
  std::vector<int> faceLine;  // OBJ line of each triangle, for deferred index checks
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> tok;
  int lineNo = 0;
  auto fail = [&](const std::string& what) -> void {
    throw InputError(str(sourceName, ":", lineNo, ": ", what));
  };
  while (std::getline(in, line)) {
    ++lineNo;
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    tokens(line, tok);
    if (tok.empty()) continue;
    if (tok[0] == "v") {
      // x y z, optionally w or r g b (ignored).
      if (tok.size() < 4) fail(str("vertex line needs 3 coordinates, got ", tok.size() - 1, ": '", line, "'"));
      Vec3d p;
      for (int k = 0; k < 3; ++k)
        if (!parseReal(tok[static_cast<std::size_t>(k) + 1], p[k]))
          fail(str("vertex coordinate '", tok[static_cast<std::size_t>(k) + 1], "' is not a finite number"));
      if (p.cwiseAbs().maxCoeff() > kMaxCoordinate)
        fail(str("vertex coordinate ", p.cwiseAbs().maxCoeff(), " is beyond the +-", kMaxCoordinate,
                 " a mesh coordinate may have"));
      mesh.vertices.push_back(p);
    } else if (tok[0] == "f") {
      if (tok.size() < 4) fail(str("face line needs at least 3 corners, got ", tok.size() - 1, ": '", line, "'"));
      std::vector<int> corner;
      corner.reserve(tok.size() - 1);
      for (std::size_t k = 1; k < tok.size(); ++k) {
        const std::string& t = tok[k];
        const std::size_t slash = t.find('/');
        const std::string idx = t.substr(0, slash);
        long long value = 0;
        auto [ptr, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), value);
        if (idx.empty() || ec != std::errc() || ptr != idx.data() + idx.size())
          fail(str("face corner '", t, "' is not a vertex index (forms: v, v/vt, v//vn, v/vt/vn)"));
        if (value == 0) fail(str("face corner '", t, "': vertex index 0 (OBJ indices start at 1)"));
        long long zeroBased = 0;
        if (value < 0) {
          zeroBased = static_cast<long long>(mesh.vertices.size()) + value;
          if (zeroBased < 0)
            fail(str("face corner '", t, "': relative index ", value, " reaches before the first vertex (",
                     mesh.vertices.size(), " vertices so far)"));
        } else {
          zeroBased = value - 1;
        }
        if (zeroBased > std::numeric_limits<int>::max() - 1) fail(str("face corner '", t, "': index too large"));
        corner.push_back(static_cast<int>(zeroBased));
      }
      for (std::size_t k = 1; k + 1 < corner.size(); ++k) {  // fan from the first corner
        mesh.faces.emplace_back(corner[0], corner[k], corner[k + 1]);
        faceLine.push_back(lineNo);
      }
    }
    // vt, vn, o, g, s, usemtl, mtllib, l, p: not needed for a solid.
  }
  const int nv = static_cast<int>(mesh.vertices.size());
  for (std::size_t f = 0; f < mesh.faces.size(); ++f)
    for (int k = 0; k < 3; ++k)
      if (mesh.faces[f][k] >= nv)
        throw InputError(str(sourceName, ":", faceLine[f], ": face refers to vertex ", mesh.faces[f][k] + 1,
                             " but the file has only ", nv, " vertices"));
  if (mesh.faces.empty()) throw InputError(str(sourceName, ": no faces ('f' lines); a mesh needs at least one triangle"));
  return mesh;
}

namespace {

// Degenerate faces, then edges shared by more than `maxShare` faces or (closed) by fewer than 2.
void checkFaces(const TriMesh& mesh, bool closed) {
  const Vec3d diag = mesh.upper() - mesh.lower();
  const double areaTol = 1e-14 * diag.squaredNorm();
  std::vector<std::pair<int, int>> edges;
  edges.reserve(3 * mesh.faces.size());
  for (std::size_t f = 0; f < mesh.faces.size(); ++f) {
    const Eigen::Vector3i& t = mesh.faces[f];
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0])
      throw InputError(str(mesh.source, ": face ", f + 1, " (vertices ", t[0] + 1, " ", t[1] + 1, " ", t[2] + 1,
                           ") is degenerate: a vertex repeats"));
    const Vec3d& a = mesh.vertices[static_cast<std::size_t>(t[0])];
    const Vec3d& b = mesh.vertices[static_cast<std::size_t>(t[1])];
    const Vec3d& c = mesh.vertices[static_cast<std::size_t>(t[2])];
    if (!((b - a).cross(c - a).norm() > areaTol))
      throw InputError(str(mesh.source, ": face ", f + 1, " (vertices ", t[0] + 1, " ", t[1] + 1, " ", t[2] + 1,
                           ") is degenerate: zero area"));
    for (int k = 0; k < 3; ++k) {
      const int u = t[k], v = t[(k + 1) % 3];
      edges.emplace_back(std::min(u, v), std::max(u, v));
    }
  }
  std::sort(edges.begin(), edges.end());
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (closed && j - i != 2)
      throw InputError(str(mesh.source, ": the mesh is not closed: edge ", edges[i].first + 1, "-",
                           edges[i].second + 1, " is shared by ", j - i, " face", j - i == 1 ? "" : "s",
                           " (a closed mesh needs exactly 2)"));
    if (!closed && j - i > 2)
      throw InputError(str(mesh.source, ": the surface is not manifold: edge ", edges[i].first + 1, "-",
                           edges[i].second + 1, " is shared by ", j - i, " faces (at most 2 allowed)"));
    i = j;
  }
}

}  // namespace

void checkClosed(const TriMesh& mesh) { checkFaces(mesh, true); }

void checkSurface(const TriMesh& mesh) { checkFaces(mesh, false); }

TriMesh readObj(const std::string& path, bool requireClosed) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(str(path, ": no such OBJ file"));
  if (std::filesystem::is_directory(path, ec)) throw InputError(str(path, ": is a directory, not an OBJ file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str(path, ": cannot open the OBJ file"));
  std::ostringstream buf;
  buf << in.rdbuf();
  TriMesh mesh = parseObj(buf.str(), path);
  if (requireClosed)
    checkClosed(mesh);
  else
    checkSurface(mesh);
  return mesh;
}

TriMesh readObj(const std::string& path) { return readObj(path, true); }

}  // namespace kinema::geometry
