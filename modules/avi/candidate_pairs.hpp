#pragma once
// Candidate contact pairs (the paper's §5 and §6.1; README decisions 26 and 32) and the validity of
// the set.
//
// Pairs formed from the scene's contact primitives (scene.hpp): 3D point-triangle, edge-edge,
// isolated point-point; 2D point-edge, isolated point-point; every contact point with every
// plane. Pairs sharing a vertex and pairs whose vertices are all scripted are never formed.
//
// Broad phase (README decision): a hashed grid (framework/geometry SpatialHash; a documented
// non-faithful alternative to the paper's BVH + separation lists) over the primitives' boxes
// inflated by eta + delta / 2, or every pair ("all", tiny scenes). Two primitives whose boxes do
// not overlap are more than 2 eta + delta apart; while no vertex has moved delta / 2 since the
// rebuild they stay more than 2 eta apart, so no layer of a non-candidate pair can activate.
// The displacement bound is kept in O(1) per kick: a running maximum speed vmax (over the
// vertices that can move) and the bound D accumulated up to the last speed-up,
// D(t) <= D_acc + (t - t_acc) vmax; the set expires when D reaches delta / 2.
#include <cstdint>
#include <limits>
#include <vector>

#include "framework/geometry/broad_phase.hpp"
#include "framework/geometry/spatial_hash.hpp"
#include "modules/avi/engine.hpp"
#include "modules/avi/scene.hpp"

namespace kinema::avi {

class CandidatePairs {
 public:
  // method "hash" or "all"; margin delta > 0 (0 selects 2 eta). Throws InputError otherwise.
  void setup(const Scene& scene, const std::string& method, double margin);
  bool allPairs() const { return all_; }
  double margin() const { return margin_; }

  // Candidate pair keys for the positions at time t, sorted by key, into `out`.
  // `near` (per vertex, may be null; the hash method only): only the pairs with a primitive that
  // has a vertex marked in `near` are needed. The hash then holds only the primitives whose box
  // meets a cell of a coarse grid that a marked primitive's box meets (a rank's region in a
  // partitioned run, README decision 57): every needed pair is found (its other box meets a
  // marked box, so a marked cell), others may be missing; point-plane pairs only for the marked
  // points. With compact regions the cost of the hash falls as 1 / ranks.
  void find(const Scene& scene, const Vertices& verts, double t, std::vector<PairKey>& out,
            const std::vector<std::uint8_t>* near = nullptr);

  // Frees the buffers find() keeps for its next call (positions, boxes, hash tables): for a
  // broad phase queried once, as a partitioned engine's is (it never rebuilds its pairs; the
  // Domain starts a new epoch instead), they would otherwise hold O(N) memory for the epoch.
  void releaseBuffers();

  // Pairs of non-adjacent contact triangles (no shared vertex) whose boxes overlap for the
  // positions x (3D), sorted: candidates of the intersection diagnostics.
  void trianglePairs(const Scene& scene, const std::vector<Vec3>& x,
                     std::vector<std::pair<std::int32_t, std::int32_t>>& out);

  // ---- validity ----
  // Starts a new validity period at time t; vmax over the vertices with mask[a] != 0 (all if
  // mask is null; scripted vertices included: they move too).
  void reset(const Vertices& verts, double t, const std::vector<std::uint8_t>* mask);
  // A vertex now moves at `speed` from time t on. Returns true if the expiry moved (earlier).
  bool noteSpeed(double speed, double t) {
    if (!(speed > vmax_)) return false;
    dAcc_ += (t - tAcc_) * vmax_;
    tAcc_ = t;
    vmax_ = speed;
    return !all_;
  }
  // Time until which the pair set is valid (+inf for "all" or when nothing moves).
  double expiry() const {
    if (all_ || !(vmax_ > 0.0)) return std::numeric_limits<double>::infinity();
    return tAcc_ + (0.5 * margin_ - dAcc_) / vmax_;
  }
  double maxSpeed() const { return vmax_; }
  // State of the validity tracker (checkpoints).
  void saveState(std::vector<double>& reals) const;
  void loadState(const std::vector<double>& reals, std::size_t& ri);

 private:
  template <int D>
  void hashPairs(std::vector<geometry::BodyPair>& pairs);
  // Keeps the boxes that meet the region of the `near` primitives, a coarse grid of the cells
  // their boxes meet (compacted in place, their primitive indices in selected_).
  template <class Box>
  void keepNear(const Scene& scene, const std::vector<std::uint8_t>& near, std::vector<Box>& boxes);
  void addPair(const Scene& scene, const Vertices& verts, int i, int j, std::vector<PairKey>& out) const;
  // Point-plane pairs (of the `near` points only, when given).
  void addPlanes(const Scene& scene, const Vertices& verts, double t, bool filter, std::vector<PairKey>& out,
                 const std::vector<std::uint8_t>* near = nullptr) const;

  bool all_ = false;
  double margin_ = 0.0;
  double inflate_ = 0.0;  // eta + margin / 2
  int dim_ = 3;
  int np_ = 0, ne_ = 0, nt_ = 0;  // primitives: points, edges, triangles (box index ranges)
  double tAcc_ = 0.0, dAcc_ = 0.0, vmax_ = 0.0;
  std::vector<Vec3> xs_;  // positions at the query time
  std::vector<geometry::Aabb<2>> boxes2_;
  std::vector<geometry::Aabb<3>> boxes3_;
  std::vector<geometry::BodyPair> bodyPairs_;
  std::vector<int> selected_;  // primitive index of each kept box (find with `near`)
  std::vector<std::uint8_t> marked_;  // keepNear's grid cells
  geometry::SpatialHash<2> hash2_;
  geometry::SpatialHash<3> hash3_;
};

}  // namespace kinema::avi
