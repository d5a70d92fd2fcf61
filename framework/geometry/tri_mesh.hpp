#pragma once
// Triangle meshes from Wavefront OBJ files: closed solids (bdem packs them: Lu et al., "Implicit
// Bonded Discrete Element Method with Manifold Optimization", Sec. 3.4) and open or closed
// surfaces (avi thin shells and cloth: the AVI paper's Sec. 8).
//
// Reader: `v x y z` and `f a b c ...` lines; face corners in the forms a, a/t, a//n and a/t/n;
// negative (relative) indices; polygons triangulated as fans from their first corner. Every other
// statement (vt, vn, o, g, s, usemtl, mtllib, comments) is skipped. Problems are InputErrors
// naming `file:line` (malformed line, index out of range) or the defect (open edge with its two
// vertex numbers, degenerate face with its number); vertex and face numbers in messages are the
// 1-based numbers of the OBJ file (faces: the n-th triangle after triangulation).
//
// Inside test: the generalised winding number (Jacobson et al. 2013), the sum of the signed solid
// angles of the triangles (van Oosterom and Strackee 1983) over 4 pi. It is +-1 inside a closed
// mesh (sign from the orientation) and 0 outside, robust to the orientation convention and to
// rays grazing edges; a point is inside when |w| > 1/2.
#include <Eigen/Core>
#include <string>
#include <vector>

namespace kinema::geometry {

// The largest coordinate magnitude a mesh may have, in the file or after transform(): products of
// three coordinates (volumes, areas squared) stay finite, so a too-large mesh is named as such
// instead of surfacing as a "degenerate" face. Far beyond any physical scene in any unit.
inline constexpr double kMaxCoordinate = 1e75;

struct TriMesh {
  std::vector<Eigen::Vector3d> vertices;
  std::vector<Eigen::Vector3i> faces;  // 0-based vertex indices
  std::string source;                   // file name (or "<string>") for messages

  Eigen::Vector3d lower() const;  // bounding box
  Eigen::Vector3d upper() const;
  // Generalised winding number at x (see above).
  double windingNumber(const Eigen::Vector3d& x) const;
  bool inside(const Eigen::Vector3d& x) const;
  // Signed volume (divergence theorem); positive for outward-oriented faces.
  double volume() const;
  // Scales about the origin, then translates. InputError naming the source, the scale and the first
  // vertex that lands beyond kMaxCoordinate (or on a NaN).
  void transform(double scale, const Eigen::Vector3d& translation);
};

// Parses OBJ text; `sourceName` names it in messages. Checks indices only.
TriMesh parseObj(const std::string& text, const std::string& sourceName = "<string>");
// Reads an OBJ file (InputError if it cannot be opened), then checkClosed().
TriMesh readObj(const std::string& path);
// Reads an OBJ file, then checkClosed() if `requireClosed`, else checkSurface() (open surfaces
// such as cloth are allowed).
TriMesh readObj(const std::string& path, bool requireClosed);
// Throws InputError for degenerate faces (two equal corners or zero area relative to the mesh
// size) and for edges not shared by exactly two faces (the mesh is not closed).
void checkClosed(const TriMesh& mesh);
// The open-surface check: degenerate faces as in checkClosed(), and edges shared by more than two
// faces (a non-manifold surface); boundary edges (one face) are allowed.
void checkSurface(const TriMesh& mesh);

}  // namespace kinema::geometry
