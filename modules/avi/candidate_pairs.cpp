#include "modules/avi/candidate_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {

// Vertices of primitive `i` (points, then edges, then triangles).
struct Prim {
  int kind = 0;  // 0 point, 1 edge, 2 triangle
  int n = 0;
  std::array<std::int32_t, 3> v{-1, -1, -1};
};

Prim primitive(const Scene& s, int np, int ne, int i) {
  Prim p;
  if (i < np) {
    p.kind = 0;
    p.n = 1;
    p.v[0] = s.contactPoints[i];
  } else if (i < np + ne) {
    p.kind = 1;
    p.n = 2;
    const Eigen::Vector2i& e = s.contactEdges[i - np];
    p.v = {e[0], e[1], -1};
  } else {
    p.kind = 2;
    p.n = 3;
    const Eigen::Vector3i& t = s.contactTriangles[i - np - ne];
    p.v = {t[0], t[1], t[2]};
  }
  return p;
}

bool shareVertex(const Prim& x, const Prim& y) {
  for (int i = 0; i < x.n; ++i)
    for (int j = 0; j < y.n; ++j)
      if (x.v[i] == y.v[j]) return true;
  return false;
}

bool allScripted(const Vertices& verts, const Prim& x, const Prim& y) {
  for (int i = 0; i < x.n; ++i)
    if (!verts.scripted(x.v[i])) return false;
  for (int j = 0; j < y.n; ++j)
    if (!verts.scripted(y.v[j])) return false;
  return true;
}

}  // namespace

void CandidatePairs::setup(const Scene& scene, const std::string& method, double margin) {
  if (method == "all")
    all_ = true;
  else if (method == "hash")
    all_ = false;
  else
    throw InputError(str("avi.broad_phase.method: unknown method '", method, "' (hash | all)"));
  if (margin < 0.0 || !std::isfinite(margin))
    throw InputError(str("avi.broad_phase.margin: must be >= 0 (0 selects 2 eta), got ", margin));
  margin_ = margin > 0.0 ? margin : 2.0 * scene.eta;
  inflate_ = scene.eta + 0.5 * margin_;
  dim_ = scene.dim;
  np_ = static_cast<int>(scene.contactPoints.size());
  ne_ = static_cast<int>(scene.contactEdges.size());
  nt_ = static_cast<int>(scene.contactTriangles.size());
}

void CandidatePairs::addPair(const Scene& scene, const Vertices& verts, int i, int j,
                             std::vector<PairKey>& out) const {
  Prim x = primitive(scene, np_, ne_, i), y = primitive(scene, np_, ne_, j);
  if (x.kind > y.kind) std::swap(x, y);
  PairKey key;
  if (x.kind == 0 && y.kind == 0) {
    if (!scene.isolated[x.v[0]] || !scene.isolated[y.v[0]]) return;
    key.kind = PairKind::PointPoint;
    key.a[0] = std::min(x.v[0], y.v[0]);
    key.b[0] = std::max(x.v[0], y.v[0]);
  } else if (dim_ == 2 && x.kind == 0 && y.kind == 1) {
    key.kind = PairKind::PointEdge;
    key.a[0] = x.v[0];
    key.b = y.v;
  } else if (dim_ == 3 && x.kind == 0 && y.kind == 2) {
    key.kind = PairKind::PointTriangle;
    key.a[0] = x.v[0];
    key.b = y.v;
  } else if (dim_ == 3 && x.kind == 1 && y.kind == 1) {
    key.kind = PairKind::EdgeEdge;
    if (y.v < x.v) std::swap(x, y);
    key.a = x.v;
    key.b = y.v;
  } else {
    return;
  }
  if (shareVertex(x, y) || allScripted(verts, x, y)) return;
  out.push_back(key);
}

void CandidatePairs::addPlanes(const Scene& scene, const Vertices& verts, double t, bool filter,
                               std::vector<PairKey>& out, const std::vector<std::uint8_t>* near) const {
  const double reach = 2.0 * scene.eta + margin_;
  for (std::size_t q = 0; q < scene.planes.size(); ++q) {
    const Plane& pl = scene.planes[q];
    for (int i = 0; i < np_; ++i) {
      const int a = scene.contactPoints[i];
      if (near && !(*near)[static_cast<std::size_t>(a)]) continue;  // a pair of one vertex: near or not at all
      if (verts.scripted(a)) continue;
      if (filter && pl.normal.dot(verts.at(a, t)) - pl.offset > reach) continue;
      PairKey key;
      key.kind = PairKind::PointPlane;
      key.a[0] = a;
      key.b[0] = static_cast<std::int32_t>(q);
      out.push_back(key);
    }
  }
}

template <int D>
void CandidatePairs::hashPairs(std::vector<geometry::BodyPair>& pairs) {
  if constexpr (D == 2)
    hash2_.findPairs(std::span<const geometry::Aabb<2>>(boxes2_), pairs);
  else
    hash3_.findPairs(std::span<const geometry::Aabb<3>>(boxes3_), pairs);
}

template <class Box>
void CandidatePairs::keepNear(const Scene& scene, const std::vector<std::uint8_t>& near, std::vector<Box>& boxes) {
  // The boxes of the primitives with a `near` vertex mark the cells of a coarse grid (kGrid cells
  // per axis over all boxes); a box is kept if it meets a marked cell. Exact for overlaps: the
  // cell index is monotone in the coordinate, so two closed boxes that overlap share the cell of
  // a common point. Finer than one bounding box of the near region when that region is not a box
  // (a rank's half of a cloth lying over a plate of spikes).
  constexpr int D = static_cast<int>(Box::Vec::RowsAtCompileTime);
  constexpr int kGrid = D == 2 ? 128 : 24;
  Box all;
  for (const Box& b : boxes) all.merge(b);
  selected_.clear();
  if (all.empty()) {
    boxes.clear();
    return;
  }
  typename Box::Vec inv;
  for (int k = 0; k < D; ++k) inv[k] = all.hi[k] > all.lo[k] ? kGrid / (all.hi[k] - all.lo[k]) : 0.0;
  const auto cell = [&](double x, int k) {
    const double c = std::floor((x - all.lo[k]) * inv[k]);
    if (!(c >= 0.0)) return 0;  // and NaN (such a box is kept, so the hash reports it)
    return c >= kGrid - 1 ? kGrid - 1 : static_cast<int>(c);
  };
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  const auto range = [&](const Box& b) {
    for (int k = 0; k < D; ++k) {
      lo[k] = cell(b.lo[k], k);
      hi[k] = cell(b.hi[k], k);
    }
  };
  const auto index = [&](int i, int j, int l) { return (static_cast<std::size_t>(l) * kGrid + j) * kGrid + i; };
  marked_.assign(static_cast<std::size_t>(D == 2 ? kGrid * kGrid : kGrid * kGrid * kGrid), 0);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const Prim p = primitive(scene, np_, ne_, static_cast<int>(i));
    bool isNear = false;
    for (int k = 0; k < p.n; ++k) isNear = isNear || near[static_cast<std::size_t>(p.v[k])];
    if (!isNear) continue;
    range(boxes[i]);
    for (int l = lo[2]; l <= hi[2]; ++l)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int c = lo[0]; c <= hi[0]; ++c) marked_[index(c, j, l)] = 1;
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    range(boxes[i]);
    bool keep = !boxes[i].lo.allFinite() || !boxes[i].hi.allFinite();
    for (int l = lo[2]; l <= hi[2] && !keep; ++l)
      for (int j = lo[1]; j <= hi[1] && !keep; ++j)
        for (int c = lo[0]; c <= hi[0] && !keep; ++c) keep = marked_[index(c, j, l)] != 0;
    if (!keep) continue;
    boxes[selected_.size()] = boxes[i];
    selected_.push_back(static_cast<int>(i));
  }
  boxes.resize(selected_.size());
}

void CandidatePairs::find(const Scene& scene, const Vertices& verts, double t, std::vector<PairKey>& out,
                          const std::vector<std::uint8_t>* near) {
  out.clear();
  const int total = np_ + ne_ + nt_;
  if (all_) {
    for (int i = 0; i < total; ++i)
      for (int j = i + 1; j < total; ++j) addPair(scene, verts, i, j, out);
    addPlanes(scene, verts, t, false, out);
  } else {
    const int n = verts.size();
    xs_.resize(n);
    for (int a = 0; a < n; ++a) xs_[a] = verts.at(a, t);
    if (dim_ == 2) {
      boxes2_.resize(total);
      for (int i = 0; i < total; ++i) {
        const Prim p = primitive(scene, np_, ne_, i);
        geometry::Aabb<2> box;
        for (int k = 0; k < p.n; ++k) box.merge(Eigen::Vector2d(xs_[p.v[k]].head<2>()));
        boxes2_[i] = box.inflate(inflate_);
      }
      if (near) keepNear(scene, *near, boxes2_);
      hashPairs<2>(bodyPairs_);
    } else {
      boxes3_.resize(total);
      for (int i = 0; i < total; ++i) {
        const Prim p = primitive(scene, np_, ne_, i);
        geometry::Aabb<3> box;
        for (int k = 0; k < p.n; ++k) box.merge(xs_[p.v[k]]);
        boxes3_[i] = box.inflate(inflate_);
      }
      if (near) keepNear(scene, *near, boxes3_);
      hashPairs<3>(bodyPairs_);
    }
    if (near)
      for (geometry::BodyPair& bp : bodyPairs_) {
        bp.i = selected_[static_cast<std::size_t>(bp.i)];
        bp.j = selected_[static_cast<std::size_t>(bp.j)];
      }
    for (const geometry::BodyPair& bp : bodyPairs_) addPair(scene, verts, bp.i, bp.j, out);
    addPlanes(scene, verts, t, true, out, near);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

void CandidatePairs::releaseBuffers() {
  std::vector<Vec3>().swap(xs_);
  std::vector<geometry::Aabb<2>>().swap(boxes2_);
  std::vector<geometry::Aabb<3>>().swap(boxes3_);
  std::vector<geometry::BodyPair>().swap(bodyPairs_);
  std::vector<int>().swap(selected_);
  std::vector<std::uint8_t>().swap(marked_);
  hash2_ = geometry::SpatialHash<2>();
  hash3_ = geometry::SpatialHash<3>();
}

void CandidatePairs::trianglePairs(const Scene& scene, const std::vector<Vec3>& x,
                                   std::vector<std::pair<std::int32_t, std::int32_t>>& out) {
  out.clear();
  const auto& tris = scene.contactTriangles;
  boxes3_.resize(tris.size());
  for (std::size_t i = 0; i < tris.size(); ++i) {
    geometry::Aabb<3> box;
    for (int k = 0; k < 3; ++k) box.merge(x[tris[i][k]]);
    boxes3_[i] = box;
  }
  hash3_.findPairs(std::span<const geometry::Aabb<3>>(boxes3_), bodyPairs_);
  for (const geometry::BodyPair& bp : bodyPairs_) {
    bool shared = false;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) shared = shared || tris[bp.i][a] == tris[bp.j][b];
    if (!shared) out.emplace_back(bp.i, bp.j);
  }
}

void CandidatePairs::reset(const Vertices& verts, double t, const std::vector<std::uint8_t>* mask) {
  tAcc_ = t;
  dAcc_ = 0.0;
  vmax_ = 0.0;
  for (int a = 0; a < verts.size(); ++a)
    if (!mask || (*mask)[a]) vmax_ = std::max(vmax_, verts.v[a].norm());
}

void CandidatePairs::saveState(std::vector<double>& reals) const {
  reals.push_back(tAcc_);
  reals.push_back(dAcc_);
  reals.push_back(vmax_);
}

void CandidatePairs::loadState(const std::vector<double>& reals, std::size_t& ri) {
  KINEMA_CHECK(ri + 3 <= reals.size(), "broad phase state truncated");
  tAcc_ = reals[ri++];
  dAcc_ = reals[ri++];
  vmax_ = reals[ri++];
}

}  // namespace kinema::avi
