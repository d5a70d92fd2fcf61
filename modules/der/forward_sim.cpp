// Implicit forward simulation of one DER strand (paper §III, Eq. 1, Sec. VI).
#include "modules/der/forward_sim.hpp"

#include <atomic>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "framework/core/error.hpp"
#include "modules/der/rod_mass.hpp"

namespace kinema::der {

namespace {

// "x_5.z" / "theta_4" for q index d.
std::string dofName(int d) {
  if (d % 4 == 3) return str("theta_", d / 4);
  return str("x_", d / 4, ".", "xyz"[d % 4]);
}

std::atomic<std::uint64_t> nextSimulatorId{1};

}  // namespace

RootMotion RootMotion::translation(const Vec3& velocity) {
  return {[velocity](double t) {
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.translation() = velocity * t;
    return T;
  }};
}

RootMotion RootMotion::rotation(const Vec3& center, const Vec3& axis, double omega) {
  const Vec3 a = axis.normalized();
  return {[center, a, omega](double t) {
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.translate(center);
    T.rotate(Eigen::AngleAxisd(omega * t, a));
    T.translate(-center);
    return T;
  }};
}

StrandSimulator::StrandSimulator(std::vector<double> q0, RestState rest, Material material, ForwardSimOptions options,
                                 std::shared_ptr<ForwardWorkspace> workspace)
    : StrandSimulator(q0, initialFrames(q0), std::move(rest), std::move(material), std::move(options),
                      std::move(workspace)) {}

StrandSimulator::StrandSimulator(std::vector<double> q0, ReferenceFrames frames, RestState rest, Material material,
                                 ForwardSimOptions options, std::shared_ptr<ForwardWorkspace> workspace)
    : q_(std::move(q0)),
      frames_(std::move(frames)),
      rest_(std::move(rest)),
      material_(std::move(material)),
      options_(std::move(options)),
      id_(nextSimulatorId++),
      ws_(workspace ? std::move(workspace) : std::make_shared<ForwardWorkspace>()) {
  N_ = vertexCount(q_);
  n_ = freeDofCount(N_);
  checkRestState(rest_, N_);
  if (options_.maxNewtonIterations < 1)
    throw InputError(str("forward simulation: max Newton iterations must be >= 1, got ", options_.maxNewtonIterations));
  qdot_.assign(q_.size(), 0.0);
  // M from the edge lengths of the modelled shape q0, as the optimisation computes it (once, from
  // the initial rest lengths, README decision 28): the material's amount does not change when the
  // optimiser changes the rest lengths, and the same M makes the optimised strand's force balance
  // hold in the forward simulation too.
  {
    std::vector<double> l0(static_cast<std::size_t>(N_ - 1));
    for (int j = 0; j + 1 < N_; ++j)
      l0[static_cast<std::size_t>(j)] = (Vec3(q_[xIndex(j + 1, 0)], q_[xIndex(j + 1, 1)], q_[xIndex(j + 1, 2)]) -
                                         Vec3(q_[xIndex(j, 0)], q_[xIndex(j, 1)], q_[xIndex(j, 2)]))
                                            .norm();
    mass_ = massDiagonal(l0, material_);
  }
  fext_ = gravityForce(mass_, material_.gravity);
  checkFinite("the initial configuration", q_);
  // Kinematics at q0 and the root's initial state for prescribed motion.
  transportFrames(frames_, q_);
  ForwardWorkspace& ws = bound();
  computeKinematics(q_, frames_, ws.K_, options_.model);
  rootX0_ = Vec3(q_[xIndex(0, 0)], q_[xIndex(0, 1)], q_[xIndex(0, 2)]);
  rootX1_ = Vec3(q_[xIndex(1, 0)], q_[xIndex(1, 1)], q_[xIndex(1, 2)]);
  rootM1_ = ws.K_.m1[0];
  stats_ = energies();
}

StrandSimulator::~StrandSimulator() {
  if (ws_->owner_ == id_) ws_->owner_ = 0;
}

ForwardWorkspace& StrandSimulator::bound() {
  ForwardWorkspace& ws = *ws_;
  if (ws.owner_ == id_) return ws;
  // K_ and f_ hold another strand's (or nothing): evaluate again at the next step. Resizing to
  // the same sizes does not allocate.
  evaluatedAtEnd_ = false;
  const std::size_t m = q_.size(), n = static_cast<std::size_t>(n_);
  ws.qPrev_.resize(m);
  ws.qStar_.resize(m);
  ws.qTrial_.resize(m);
  ws.f_.resize(m);
  ws.g_.resize(n);
  ws.dx_.resize(n);
  if (ws.H_.size() != n_ || ws.H_.bandwidth() != kForwardBandwidth) ws.H_.resize(n_, kForwardBandwidth);
  if (ws.ldlt_.pivotFloor() != options_.pivotFloor) ws.ldlt_ = BandedLdlt(options_.pivotFloor);
  ws.owner_ = id_;
  ++ws.rebuilds_;
  return ws;
}

void StrandSimulator::setVelocity(const std::vector<double>& qdot) {
  if (qdot.size() != q_.size())
    throw InputError(str("forward simulation: velocity of size ", qdot.size(), " for ", q_.size(), " DOFs"));
  qdot_ = qdot;
  checkFinite("the velocity", qdot_);
}

void StrandSimulator::restoreState(const std::vector<double>& q, const std::vector<double>& qdot,
                                   const ReferenceFrames& frames, double time, long steps) {
  if (q.size() != q_.size() || qdot.size() != q_.size() || frames.a1.size() != frames_.a1.size() ||
      frames.tangent.size() != frames_.tangent.size() || frames.refTwist.size() != frames_.refTwist.size())
    throw InputError(str("forward simulation: restored state does not fit a strand of ", N_, " vertices"));
  q_ = q;
  qdot_ = qdot;
  frames_ = frames;
  checkFinite("the restored configuration", q_);
  checkFinite("the restored velocity", qdot_);
  time_ = time;
  steps_ = steps;
  evaluatedAtEnd_ = false;
  stats_ = energies();
}

StepStats StrandSimulator::energies() const {
  StepStats s = stats_;
  s.time = time_;
  s.step = steps_;
  s.elastic = elasticEnergy(computeKinematics(q_, frames_, options_.model), rest_, material_.radius);
  s.kinetic = 0.0;
  s.gravityPotential = 0.0;
  for (std::size_t d = 0; d < q_.size(); ++d) {
    s.kinetic += 0.5 * mass_[d] * qdot_[d] * qdot_[d];
    s.gravityPotential -= fext_[d] * q_[d];
  }
  return s;
}

void StrandSimulator::fail(const std::string& message) const {
  throw Error(str("DER forward simulation", options_.strandId >= 0 ? str(" of strand ", options_.strandId) : "",
                  ", step ", steps_ + 1, " (from t = ", time_, "): ", message));
}

void StrandSimulator::checkFinite(const char* what, const std::vector<double>& v) const {
  for (std::size_t d = 0; d < v.size(); ++d)
    if (!std::isfinite(v[d]))
      fail(str(what, " is non-finite: ", v[d], " at q[", d, "] (", dofName(static_cast<int>(d)), ")"));
}

void StrandSimulator::prescribeRoot(const RootMotion& root, double t) {
  if (!root.transform) return;  // the root stays where it is
  const Eigen::Isometry3d T = root.transform(t);
  const Vec3 x0 = T * rootX0_, x1 = T * rootX1_;
  for (int c = 0; c < 3; ++c) {
    q_[xIndex(0, c)] = x0[c];
    q_[xIndex(1, c)] = x1[c];
  }
  // theta_0 such that m_1^0 = R m_1^0(0): measured from the reference director a_1^0
  // time-parallel transported to the new edge, unwrapped against the previous theta_0.
  const Vec3 t0 = (x1 - x0).normalized();
  const Vec3 a1 = parallelTransport(frames_.a1[0], frames_.tangent[0], t0);
  const double previous = q_[thetaIndex(0)];
  double theta = signedAngle(a1, T.linear() * rootM1_, t0);
  const double twoPi = 2.0 * std::numbers::pi;
  theta += twoPi * std::round((previous - theta) / twoPi);
  q_[thetaIndex(0)] = theta;
}

void StrandSimulator::evaluate(double dt) {
  ForwardWorkspace& ws = *ws_;  // bound by step()
  if (!evaluated_) {
    computeKinematics(q_, frames_, ws.K_, options_.model);
    elastic_ = elasticForce(ws.K_, rest_, material_.radius, ws.f_);
  }
  evaluated_ = false;  // ws.K_ and ws.f_ are reused once only when the caller says q_ is unchanged
  // g = grad (E_in + E) on the free DOFs: M / dt^2 (q - q*) - f (Eq. 1).
  const double w = 1.0 / (dt * dt);
  for (int a = 0; a < n_; ++a) {
    const int d = a + kFixedDofs;
    ws.g_[a] = w * mass_[d] * (q_[d] - ws.qStar_[d]) - ws.f_[d];
  }
}

double StrandSimulator::inertialEnergy(const std::vector<double>& q, double dt) const {
  const ForwardWorkspace& ws = *ws_;  // bound by step()
  double e = 0.0;
  for (int d = kFixedDofs; d < static_cast<int>(q.size()); ++d) e += mass_[d] * (q[d] - ws.qStar_[d]) * (q[d] - ws.qStar_[d]);
  return 0.5 * e / (dt * dt);
}

double StrandSimulator::incrementalPotential(const std::vector<double>& q, double dt) {
  ForwardWorkspace& ws = *ws_;  // bound by step()
  computeKinematics(q, frames_, ws.K_, options_.model);
  return elasticEnergy(ws.K_, rest_, material_.radius).total() + inertialEnergy(q, dt);
}

void StrandSimulator::beginStep(double dt, const RootMotion& root) {
  ForwardWorkspace& ws = *ws_;  // bound by step()
  ws.qPrev_ = q_;  // same size: no allocation
  // q* = q + dt qdot + dt^2 M^{-1} f_ext (Eq. 1), free DOFs.
  for (std::size_t d = kFixedDofs; d < q_.size(); ++d)
    ws.qStar_[d] = q_[d] + dt * qdot_[d] + dt * dt * fext_[d] / mass_[d];
  checkFinite("the inertial target q* = q + dt qdot + dt^2 M^-1 f_ext", ws.qStar_);
  prescribeRoot(root, time_ + dt);
  // With a fixed root, q_ is the state the previous step ended with and evaluated: its
  // kinematics and elastic force are still valid (frames were transported since, which does
  // not change them).
  evaluated_ = evaluatedAtEnd_ && !root.transform;
  evaluatedAtEnd_ = false;
}

double StrandSimulator::newtonDirection(double dt) {
  ForwardWorkspace& ws = *ws_;  // bound by step()
  const double w = 1.0 / (dt * dt);
  // Newton system (M / dt^2 + H) dx = -g, banded with kd = 10.
  ws.H_.setZero();
  for (int a = 0; a < n_; ++a) ws.H_.add(a, a, w * mass_[a + kFixedDofs]);
  addElasticHessian(ws.K_, rest_, material_.radius, ws.H_);
  stats_.clampedPivots += ws.ldlt_.factor(ws.H_).clampedPivots;
  ws.ldlt_.solve(ws.g_, ws.dx_);
  for (int a = 0; a < n_; ++a)
    if (!std::isfinite(ws.dx_[a]))
      fail(str("the Newton step is non-finite: ", ws.dx_[a], " at q[", a + kFixedDofs, "] (",
               dofName(a + kFixedDofs), ")"));
  double slope = 0.0;
  for (int a = 0; a < n_; ++a) {
    ws.dx_[a] = -ws.dx_[a];
    slope += ws.g_[a] * ws.dx_[a];
  }
  return slope;
}

double StrandSimulator::lineSearch(double dt, double slope) {
  ForwardWorkspace& ws = *ws_;  // bound by step()
  double alpha = 1.0;
  // Backtracking on E_in + E (Armijo constant 1e-4, halving, at most 30 halvings).
  const double phi0 = elastic_.total() + inertialEnergy(q_, dt);  // ws.K_, elastic_ are at q_
  for (int k = 0; k < 30; ++k) {
    ws.qTrial_ = q_;
    for (int a = 0; a < n_; ++a) ws.qTrial_[a + kFixedDofs] += alpha * ws.dx_[a];
    double phi = 0.0;
    try {
      phi = incrementalPotential(ws.qTrial_, dt);
    } catch (const Error&) {
      phi = std::numeric_limits<double>::infinity();  // degenerate trial point: shorten
    }
    if (phi <= phi0 + 1e-4 * alpha * slope) break;
    alpha *= 0.5;
  }
  return alpha;
}

void StrandSimulator::endStep(double dt) {
  ForwardWorkspace& ws = *ws_;  // bound by step()
  // New velocity, frames transported in time to the new configuration.
  evaluatedAtEnd_ = true;  // the loop always ends right after evaluate() at the final q_
  for (std::size_t d = 0; d < q_.size(); ++d) qdot_[d] = (q_[d] - ws.qPrev_[d]) / dt;
  checkFinite("the configuration", q_);
  checkFinite("the velocity", qdot_);
  transportFrames(frames_, q_);
  time_ += dt;
  ++steps_;

  StepStats& s = stats_;
  s.step = steps_;
  s.time = time_;
  s.elastic = elastic_;  // evaluated at the final q by the last evaluate()
  s.kinetic = 0.0;
  s.gravityPotential = 0.0;
  for (std::size_t d = 0; d < q_.size(); ++d) {
    s.kinetic += 0.5 * mass_[d] * qdot_[d] * qdot_[d];
    s.gravityPotential -= fext_[d] * q_[d];
  }
  if (!std::isfinite(s.energy())) fail(str("the energy is ", s.energy()));
}

const StepStats& StrandSimulator::step(double dt, const RootMotion& root) {
  if (!(dt > 0.0) || !std::isfinite(dt)) throw InputError(str("forward simulation: time step must be > 0, got ", dt));
  ForwardWorkspace& ws = bound();
  try {
    beginStep(dt, root);
    StepStats& s = stats_;
    s.newtonIterations = 0;
    s.clampedPivots = 0;
    double g0 = -1.0;
    for (;;) {
      checkFinite("the configuration", q_);
      evaluate(dt);
      double gnorm2 = 0.0;
      for (double v : ws.g_) gnorm2 += v * v;
      const double gnorm = std::sqrt(gnorm2);
      if (!std::isfinite(gnorm)) {
        fail(str("the Newton residual is ", gnorm, " (non-finite elastic force)"));
      }
      s.residualNorm = gnorm;
      if (g0 < 0.0) g0 = gnorm;
      if (s.newtonIterations >= options_.maxNewtonIterations) break;
      if (gnorm <= options_.absoluteTolerance || gnorm <= options_.relativeTolerance * g0) break;

      const double slope = newtonDirection(dt);
      const double alpha = options_.lineSearch ? lineSearch(dt, slope) : 1.0;
      for (int a = 0; a < n_; ++a) q_[a + kFixedDofs] += alpha * ws.dx_[a];
      ++s.newtonIterations;
    }
    endStep(dt);
    return s;
  } catch (Error& e) {
    // Leave the simulator at the state before the failed step.
    q_ = ws.qPrev_;
    evaluatedAtEnd_ = false;
    if (e.message().rfind("DER forward simulation", 0) != 0)
      e.addContext(str("in step ", steps_ + 1, " (t = ", time_, ") of the DER forward simulation",
                       options_.strandId >= 0 ? str(" of strand ", options_.strandId) : ""));
    throw;
  }
}

}  // namespace kinema::der
