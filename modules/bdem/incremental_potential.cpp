#include "modules/bdem/incremental_potential.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "modules/bdem/bond_energy.hpp"
#include "modules/bdem/contact_energy.hpp"

namespace kinema::bdem {

using solvers::RigidManifold;

namespace {
double maxRadius(const System& s, const Comm& comm) {
  double r = 0;
  for (std::size_t a = 0; a < s.P.numOwned; ++a) r = std::max(r, s.P.r[a]);
  return comm.max(r);
}
double maxModulus(const System& s) {
  double E = 0;
  for (const Material& m : s.materials) E = std::max(E, m.E);
  return E;
}
}  // namespace

double contactStiffnessPair(const System& s, const Comm& comm) {
  return s.contact.kec > 0 ? s.contact.kec : maxModulus(s) * maxRadius(s, comm);
}
double contactStiffnessObstacle(const System& s, const Comm& comm) {
  return s.contact.kc > 0 ? s.contact.kc : maxModulus(s) * maxRadius(s, comm);
}

IncrementalPotential::IncrementalPotential(System& s, Comm comm, const IntegratorOptions& options)
    : s_(s), comm_(comm), opt_(options) {
  kec_ = contactStiffnessPair(s, comm_);
  kc_ = contactStiffnessObstacle(s, comm_);
  const double rmax = maxRadius(s, comm_);
  forceFloor_ = 1e-12 * maxModulus(s) * rmax * rmax;
  if (!(opt_.contactPadding >= 0))
    throw InputError(str("bdem: contact padding must be >= 0, got ", opt_.contactPadding));
}

void IncrementalPotential::beginStep(double dt) {
  if (!(dt > 0) || !std::isfinite(dt)) throw InputError(str("bdem: time step must be positive, got ", dt));
  dt_ = dt;
  tNext_ = s_.time + dt;
  const std::size_t n = s_.P.size();
  pHat_.resize(n);
  qHat_.resize(n);
  for (std::size_t a = 0; a < n; ++a) {  // Alg. 3 line 1 (x_hat = x^n + dt v^n)
    pHat_[a] = s_.P.p[a] + dt * s_.P.v[a];
    qHat_[a] = s_.P.q[a] + dt * s_.P.qdot[a];
  }
  buildCandidates(dt);
}

void IncrementalPotential::buildCandidates(double dt) {
  candidates_.clear();
  bonded_.clear();
  for (const Bond& b : s_.bonds)
    if (b.alive) bonded_.emplace_back(std::min(b.gi, b.gj), std::max(b.gi, b.gj));
  std::sort(bonded_.begin(), bonded_.end());
  double vmax = 0;
  for (std::size_t a = 0; a < s_.P.numOwned; ++a) vmax = std::max(vmax, s_.P.v[a].norm());
  vmax = comm_.max(vmax);
  if (!s_.contact.enabled) return;
  const std::size_t n = s_.P.size();
  if (n < 2) return;
  const double pad = 1.0 + opt_.contactPadding;
  boxes_.resize(n);
  for (std::size_t a = 0; a < n; ++a)
    boxes_[a] = geometry::Aabb<3>::ofBall(s_.P.p[a], s_.P.r[a] * pad + vmax * dt);
  hash_.findPairs(boxes_, pairs_);
  for (const geometry::BodyPair& bp : pairs_) {
    std::int32_t i = bp.i, j = bp.j;
    if (s_.P.gid[static_cast<std::size_t>(i)] > s_.P.gid[static_cast<std::size_t>(j)]) std::swap(i, j);
    const auto ui = static_cast<std::size_t>(i), uj = static_cast<std::size_t>(j);
    if (!s_.P.owned(ui)) continue;                                  // owner of the smaller gid
    if (s_.P.dof[ui] != Dof::Free && s_.P.dof[uj] != Dof::Free) continue;  // constant
    const double reach = (s_.P.r[ui] + s_.P.r[uj]) * pad + 2.0 * vmax * dt;
    if ((s_.P.p[ui] - s_.P.p[uj]).squaredNorm() > reach * reach) continue;
    if (std::binary_search(bonded_.begin(), bonded_.end(), std::make_pair(s_.P.gid[ui], s_.P.gid[uj]))) continue;
    candidates_.push_back({i, j});
  }
}

void IncrementalPotential::gather(la::Vector& x) const {
  la::Vector::View w = x.view();
  KINEMA_CHECK(static_cast<std::size_t>(x.localSize()) == 7 * s_.P.size(), "bdem: point vector has ",
               x.localSize(), " local entries for ", s_.P.size(), " particles");
  for (std::size_t a = 0; a < s_.P.size(); ++a) {
    double* b = w.data() + 7 * a;
    for (int k = 0; k < 3; ++k) b[k] = s_.P.p[a][k];
    for (int k = 0; k < 4; ++k) b[3 + k] = s_.P.q[a][k];
  }
}

void IncrementalPotential::scatter(const la::Vector& x) {
  la::Vector::ConstView r = x.constView();
  for (std::size_t a = 0; a < s_.P.size(); ++a) {
    if (!isFree(a)) continue;
    const double* b = r.data() + 7 * a;
    s_.P.p[a] = Vec3(b[0], b[1], b[2]);
    s_.P.q[a] = Vec4(b[3], b[4], b[5], b[6]);
  }
}

Vec3 IncrementalPotential::position(const double* x, std::size_t a) const {
  if (!isFree(a)) return s_.P.p[a];
  const double* b = x + 7 * a;
  return Vec3(b[0], b[1], b[2]);
}
Vec4 IncrementalPotential::orientation(const double* x, std::size_t a) const {
  if (!isFree(a)) return s_.P.q[a];
  const double* b = x + 7 * a;
  return Vec4(b[3], b[4], b[5], b[6]);
}

PotentialTerms IncrementalPotential::evaluate(const double* x) const {
  PotentialTerms T;
  const double idt2 = 1.0 / (dt_ * dt_);
  for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
    if (!isFree(a)) continue;
    const Vec3 p = position(x, a);
    if (inertia_) {
      const Vec4 q = orientation(x, a);
      T.inertia += 0.5 * idt2 * (s_.P.m[a] * (p - pHat_[a]).squaredNorm() +
                                 s_.P.rotationalMass(a) * (q - qHat_[a]).squaredNorm());
    }
    T.gravity -= s_.P.m[a] * s_.gravity.dot(p);
    if (a < s_.load.size()) T.loads -= s_.load[a].dot(p);  // external load, -f.p like gravity
    for (const Obstacle& o : s_.obstacles) {
      const double e = obstacleContactEnergy(kc_, o, tNext_, s_.P.r[a], p);
      if (e > 0) {
        T.obstacleContacts += e;
        ++T.activeObstacle;
      }
    }
  }
  for (const Bond& b : s_.bonds) {
    if (!b.alive) continue;
    const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
    T.bonds += bondEnergy(b, s_.model, position(x, i), orientation(x, i), position(x, j), orientation(x, j)).total();
  }
  for (const ContactCandidate& c : candidates_) {
    const auto i = static_cast<std::size_t>(c.i), j = static_cast<std::size_t>(c.j);
    const double e = pairContactEnergy(kec_, s_.P.r[i], s_.P.r[j], position(x, i), position(x, j));
    if (e > 0) {
      T.pairContacts += e;
      ++T.activePairs;
    }
  }
  T.inertia = comm_.sum(T.inertia);
  T.gravity = comm_.sum(T.gravity);
  T.loads = comm_.sum(T.loads);
  T.obstacleContacts = comm_.sum(T.obstacleContacts);
  T.bonds = comm_.sum(T.bonds);
  T.pairContacts = comm_.sum(T.pairContacts);
  T.activePairs = static_cast<long>(comm_.sum(static_cast<std::int64_t>(T.activePairs)));
  T.activeObstacle = static_cast<long>(comm_.sum(static_cast<std::int64_t>(T.activeObstacle)));
  return T;
}

double IncrementalPotential::energy(const la::Vector& x) {
  la::Vector::ConstView r = x.constView();
  return evaluate(r.data()).total();
}

PotentialTerms IncrementalPotential::terms(const la::Vector& x) {
  la::Vector::ConstView r = x.constView();
  return evaluate(r.data());
}

void IncrementalPotential::gradient(const la::Vector& x, la::Vector& g) {
  double fsum = 0;  // summed term magnitudes on free particles (the force scale, see convergenceMeasure)
  double nfree = 0;
  {
    la::Vector::ConstView xr = x.constView();
    la::Vector::View gw = g.view();
    const double* X = xr.data();
    double* G = gw.data();
    std::fill(gw.all().begin(), gw.all().end(), 0.0);
    const double idt2 = 1.0 / (dt_ * dt_);
    auto addP = [&](std::size_t a, const Vec3& v) {
      for (int k = 0; k < 3; ++k) G[6 * a + k] += v[k];
      if (isFree(a)) fsum += v.norm();
    };
    auto addY = [&](std::size_t a, const Vec3& v) {
      for (int k = 0; k < 3; ++k) G[6 * a + 3 + k] += v[k];
      if (isFree(a)) fsum += v.norm() / s_.P.r[a];  // a torque over r: a force
    };
    for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
      if (!isFree(a) && !allRows_) continue;
      const Vec3 p = position(X, a);
      if (isFree(a) && !allRows_) {
        nfree += 1;
        const Vec4 q = orientation(X, a);
        if (inertia_) {
          addP(a, s_.P.m[a] * idt2 * (p - pHat_[a]));
          addY(a, -s_.P.rotationalMass(a) * idt2 * (RigidManifold::G(q) * qHat_[a]));  // G q = 0
        }
        addP(a, -s_.P.m[a] * s_.gravity);
        if (a < s_.load.size() && !s_.load[a].isZero()) addP(a, -s_.load[a]);  // external load (loads.hpp)
      }
      for (const Obstacle& o : s_.obstacles) {
        Vec3 go = Vec3::Zero();
        obstacleContactEnergy(kc_, o, tNext_, s_.P.r[a], p, &go);
        addP(a, go);
      }
    }
    for (const Bond& b : s_.bonds) {
      if (!b.alive) continue;
      const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
      Vec12 gr = Vec12::Zero();
      bondReduced(b, s_.model, position(X, i), orientation(X, i), position(X, j), orientation(X, j), &gr, nullptr);
      addP(i, gr.segment<3>(0));
      addY(i, gr.segment<3>(3));
      addP(j, gr.segment<3>(6));
      addY(j, gr.segment<3>(9));
    }
    for (const ContactCandidate& c : candidates_) {
      const auto i = static_cast<std::size_t>(c.i), j = static_cast<std::size_t>(c.j);
      Vec6 gc = Vec6::Zero();
      pairContactEnergy(kec_, s_.P.r[i], s_.P.r[j], position(X, i), position(X, j), &gc);
      addP(i, gc.segment<3>(0));
      addP(j, gc.segment<3>(3));
    }
  }
  forceSumLocal_ = fsum;
  freeLocal_ = nfree;
  g.accumulateGhosts();
  if (!allRows_) {
    la::Vector::View gw = g.view();
    for (std::size_t a = 0; a < s_.P.numOwned; ++a)
      if (!isFree(a))
        for (int k = 0; k < 6; ++k) gw[static_cast<la::LocalIndex>(6 * a) + k] = 0.0;
  }
}

void IncrementalPotential::supportGradient(const la::Vector& x, la::Vector& g) {
  const double sum = forceSumLocal_, nfree = freeLocal_;  // keep the force scale of the solve
  allRows_ = true;
  try {
    gradient(x, g);
  } catch (...) {
    allRows_ = false;
    throw;
  }
  allRows_ = false;
  forceSumLocal_ = sum;
  freeLocal_ = nfree;
}

void IncrementalPotential::hessian(const la::Vector& x, solvers::ReducedHessian& H) {
  la::Vector::ConstView xr = x.constView();
  const double* X = xr.data();
  const double idt2 = 1.0 / (dt_ * dt_);
  using Mat6 = Eigen::Matrix<double, 6, 6>;
  for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
    Mat6 D = Mat6::Zero();
    if (!isFree(a)) {
      D.setIdentity();  // Dirichlet block (README decision 28): the direction there is 0
      H.addBlock(s_.P.gid[a], s_.P.gid[a], D);
      continue;
    }
    const Vec3 p = position(X, a);
    if (inertia_) {
      const Vec4 q = orientation(X, a);
      // Eqs. 28-29: H_pp = m/dt^2 I3, H_yy = (8/5) m r^2/dt^2 (q . q_hat) I3, floored (README decision 29).
      const double Mr = s_.P.rotationalMass(a) * idt2;
      D.block<3, 3>(0, 0).diagonal().setConstant(s_.P.m[a] * idt2);
      D.block<3, 3>(3, 3).diagonal().setConstant(Mr * std::max(q.dot(qHat_[a]), epsInertia));
    }
    for (const Obstacle& o : s_.obstacles) {
      Mat3 ho = Mat3::Zero();
      obstacleContactEnergy(kc_, o, tNext_, s_.P.r[a], p, nullptr, &ho);  // k_c grad g grad g^T (PSD)
      D.block<3, 3>(0, 0) += ho;
    }
    H.addBlock(s_.P.gid[a], s_.P.gid[a], D);
  }
  for (const Bond& b : s_.bonds) {
    if (!b.alive) continue;
    const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
    const bool fi = isFree(i), fj = isFree(j);
    if (!fi && !fj) continue;
    Vec12 gr = Vec12::Zero();
    Mat12 hr = Mat12::Zero();
    bondReduced(b, s_.model, position(X, i), orientation(X, i), position(X, j), orientation(X, j), &gr, &hr);
    if (!fi) {
      hr.topRows<6>().setZero();
      hr.leftCols<6>().setZero();
    }
    if (!fj) {
      hr.bottomRows<6>().setZero();
      hr.rightCols<6>().setZero();
    }
    const std::array<la::GlobalIndex, 2> blocks{s_.P.gid[i], s_.P.gid[j]};
    // PSD projection (Lu et al., the bdem paper, Sec. 5.2, as in IPC). A bond's energy depends on
    // the positions only through p_j - p_i (Eqs. 8-11), so the exact projection runs on the 9
    // relative coordinates (docs/modules/bdem.md, "Integrator"); where a fixed particle's rows
    // are zeroed above, the common translation is no longer a null vector and it falls back to
    // the 12x12 projection.
    H.addTranslationInvariantPair<12>(blocks, hr);
  }
  for (const ContactCandidate& c : candidates_) {
    const auto i = static_cast<std::size_t>(c.i), j = static_cast<std::size_t>(c.j);
    Mat6 hc = Mat6::Zero();
    if (pairContactEnergy(kec_, s_.P.r[i], s_.P.r[j], position(X, i), position(X, j), nullptr, &hc) <= 0) continue;
    Mat12 he = Mat12::Zero();  // k_ec u u^T on the p blocks (README decision 18, already PSD)
    he.block<3, 3>(0, 0) = hc.block<3, 3>(0, 0);
    he.block<3, 3>(0, 6) = hc.block<3, 3>(0, 3);
    he.block<3, 3>(6, 0) = hc.block<3, 3>(3, 0);
    he.block<3, 3>(6, 6) = hc.block<3, 3>(3, 3);
    if (!isFree(i)) {
      he.topRows<6>().setZero();
      he.leftCols<6>().setZero();
    }
    if (!isFree(j)) {
      he.bottomRows<6>().setZero();
      he.rightCols<6>().setZero();
    }
    const std::array<la::GlobalIndex, 2> blocks{s_.P.gid[i], s_.P.gid[j]};
    H.addElement<12>(blocks, he, false);
  }
}

double IncrementalPotential::forceScale() const {
  const double n = comm_.sum(freeLocal_);
  const double sum = comm_.sum(forceSumLocal_);
  return std::max(n > 0 ? sum / n : 0.0, forceFloor_);
}

double IncrementalPotential::convergenceMeasure(const la::Vector& x, const la::Vector& g) {
  (void)x;
  la::Vector::ConstView gr = g.constView();
  double res = 0;
  for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
    if (!isFree(a)) continue;
    const double* b = gr.data() + 6 * a;
    const double gp = std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    const double gy = std::sqrt(b[3] * b[3] + b[4] * b[4] + b[5] * b[5]);
    res = std::max({res, gp, gy / s_.P.r[a]});
    if (!std::isfinite(gp + gy)) res = std::numeric_limits<double>::infinity();
  }
  return comm_.max(res) / forceScale();
}

std::vector<std::shared_ptr<const la::Vector>> IncrementalPotential::nearNullSpace(const la::Vector& x,
                                                                                   const la::Backend& backend,
                                                                                   const la::IndexMapPtr& tangentMap) {
  la::Vector::ConstView xr = x.constView();
  Vec3 c = Vec3::Zero();
  for (std::size_t a = 0; a < s_.P.numOwned; ++a) c += position(xr.data(), a);
  const double n = comm_.sum(static_cast<double>(s_.P.numOwned));
  for (int k = 0; k < 3; ++k) c[k] = comm_.sum(c[k]);
  if (n > 0) c /= n;
  std::vector<std::shared_ptr<const la::Vector>> modes;
  for (int mode = 0; mode < 6; ++mode) {
    std::shared_ptr<la::Vector> v = backend.createVector(tangentMap);
    {
      la::Vector::View w = v->view();
      std::fill(w.all().begin(), w.all().end(), 0.0);
      for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
        double* b = w.data() + 6 * a;
        if (mode < 3) {
          b[mode] = 1.0;  // translation: dp = e_k, y = 0
        } else {
          const Vec3 e = Vec3::Unit(mode - 3);
          const Vec3 dp = e.cross(position(xr.data(), a) - c);  // rotation: dp = e_k x (p - p_c)
          for (int k = 0; k < 3; ++k) b[k] = dp[k];
          b[3 + mode - 3] = 0.5;  // y = e_k / 2 (G_r, world frame)
        }
      }
    }
    modes.push_back(std::move(v));
  }
  return modes;
}

}  // namespace kinema::bdem
