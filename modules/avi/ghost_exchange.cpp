#include "modules/avi/ghost_exchange.hpp"

#include <algorithm>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {
constexpr int kStateBlock = 7;    // x (3), v (3), t
constexpr int kImpulseBlock = 3;  // dv
}  // namespace

GhostExchange::GhostExchange(Comm comm, const la::Backend& backend, const std::vector<int>& owner,
                             std::vector<std::int32_t> ghosts, std::vector<std::int32_t> published)
    : comm_(comm), ghosts_(std::move(ghosts)), published_(std::move(published)) {
  const int ranks = comm_.size(), rank = comm_.rank();
  const auto nv = static_cast<std::int32_t>(owner.size());
  // Owner-contiguous numbering: rank r's vertices in increasing scene index.
  std::vector<std::int64_t> offset(static_cast<std::size_t>(ranks) + 1, 0);
  for (int r : owner) {
    KINEMA_CHECK(r >= 0 && r < ranks, "avi ghost exchange: vertex owner ", r, " outside [0, ", ranks, ")");
    ++offset[static_cast<std::size_t>(r) + 1];
  }
  for (int r = 0; r < ranks; ++r) offset[static_cast<std::size_t>(r) + 1] += offset[static_cast<std::size_t>(r)];
  global_.resize(owner.size());
  {
    std::vector<std::int64_t> next(offset.begin(), offset.end() - 1);
    for (std::int32_t a = 0; a < nv; ++a) global_[static_cast<std::size_t>(a)] = next[static_cast<std::size_t>(owner[static_cast<std::size_t>(a)])]++;
  }
  const std::int64_t owned = offset[static_cast<std::size_t>(rank) + 1] - offset[static_cast<std::size_t>(rank)];
  std::vector<la::GlobalIndex> ghostBlocks;
  ghostBlocks.reserve(ghosts_.size());
  for (std::int32_t g : ghosts_) {
    KINEMA_CHECK(g >= 0 && g < nv, "avi ghost exchange: ghost vertex ", g, " outside [0, ", nv, ")");
    KINEMA_CHECK(owner[static_cast<std::size_t>(g)] != rank, "avi ghost exchange: ghost vertex ", g,
                 " is owned by this rank (", rank, ")");
    ghostBlocks.push_back(global_[static_cast<std::size_t>(g)]);
  }
  stateMap_ = std::make_shared<const la::IndexMap>(comm_, owned, ghostBlocks, kStateBlock);
  impulseMap_ = std::make_shared<const la::IndexMap>(comm_, owned, std::move(ghostBlocks), kImpulseBlock);
  KINEMA_CHECK(stateMap_->ownedBegin() == offset[static_cast<std::size_t>(rank)],
               "avi ghost exchange: the index map's offsets differ from the owner numbering");
  publishedLocal_.reserve(published_.size());
  for (std::int32_t a : published_) {
    KINEMA_CHECK(a >= 0 && a < nv && owner[static_cast<std::size_t>(a)] == rank,
                 "avi ghost exchange: published vertex ", a, " is not owned by rank ", rank);
    publishedLocal_.push_back(global_[static_cast<std::size_t>(a)] - offset[static_cast<std::size_t>(rank)]);
  }
  states_ = backend.createVector(stateMap_);
  impulses_ = backend.createVector(impulseMap_);
  ghostStates_.resize(ghosts_.size());

  // Contract check: every ghost is published by its owner (else its state would be stale).
  // Uses the state vector once: published entries carry t = 1, everything else t = 0.
  {
    la::Vector::View w = states_->view();
    std::fill(w.all().begin(), w.all().end(), 0.0);
    for (std::int64_t l : publishedLocal_) w[l * kStateBlock + 6] = 1.0;
  }
  states_->updateGhosts();
  std::int64_t missing = -1;
  {
    la::Vector::ConstView w = states_->constView();
    const std::int64_t base = stateMap_->ownedBlocks();
    for (std::size_t i = 0; i < ghosts_.size() && missing < 0; ++i)
      if (w[(base + static_cast<std::int64_t>(i)) * kStateBlock + 6] != 1.0) missing = ghosts_[i];
  }
  const std::int64_t worst = comm_.max(missing);
  KINEMA_CHECK(worst < 0, "avi ghost exchange: vertex ", worst,
               " is a ghost on some rank but its owner does not list it as a boundary vertex");
}

GhostExchange::~GhostExchange() = default;

void GhostExchange::exchangeStates(const Vertices& vertices) {
  {
    la::Vector::View w = states_->view();
    for (std::size_t i = 0; i < published_.size(); ++i) {
      const auto a = static_cast<std::size_t>(published_[i]);
      double* s = w.data() + publishedLocal_[i] * kStateBlock;
      for (int c = 0; c < 3; ++c) {
        s[c] = vertices.x[a][c];
        s[3 + c] = vertices.v[a][c];
      }
      s[6] = vertices.t[a];
    }
  }
  states_->updateGhosts();
  la::Vector::ConstView w = states_->constView();
  const std::int64_t base = stateMap_->ownedBlocks();
  for (std::size_t i = 0; i < ghosts_.size(); ++i) {
    const double* s = w.data() + (base + static_cast<std::int64_t>(i)) * kStateBlock;
    GhostState& g = ghostStates_[i];
    g.x = Vec3(s[0], s[1], s[2]);
    g.v = Vec3(s[3], s[4], s[5]);
    g.t = s[6];
  }
}

void GhostExchange::accumulateImpulses(const std::vector<Vec3>& ghostDv,
                                       std::vector<std::pair<int, Vec3>>& owned) {
  KINEMA_CHECK(ghostDv.size() == ghosts_.size(), "avi ghost exchange: ", ghostDv.size(),
               " ghost impulses for ", ghosts_.size(), " ghosts");
  {
    la::Vector::View w = impulses_->view();
    for (double& s : w.owned()) s = 0.0;
    double* g = w.data() + impulseMap_->ownedSize();
    for (std::size_t i = 0; i < ghostDv.size(); ++i)
      for (int c = 0; c < 3; ++c) g[i * kImpulseBlock + static_cast<std::size_t>(c)] = ghostDv[i][c];
  }
  impulses_->accumulateGhosts();
  owned.clear();
  la::Vector::ConstView w = impulses_->constView();
  for (std::size_t i = 0; i < published_.size(); ++i) {
    const double* s = w.data() + publishedLocal_[i] * kImpulseBlock;
    if (s[0] != 0.0 || s[1] != 0.0 || s[2] != 0.0) owned.emplace_back(published_[i], Vec3(s[0], s[1], s[2]));
  }
  std::sort(owned.begin(), owned.end(),
            [](const std::pair<int, Vec3>& p, const std::pair<int, Vec3>& q) { return p.first < q.first; });
}

}  // namespace kinema::avi
