// DerModule's output: the diagnostics row, frames, the exported state and the summary.
#include <algorithm>
#include <span>
#include <sstream>

#include "modules/der/der_module.hpp"
#include "modules/der/der_sources.hpp"

namespace kinema::der {

DerModule::Totals DerModule::localTotals() const {
  Totals t;
  if (!optimizers_.empty()) {
    for (const auto& opt : optimizers_) {
      if (!opt->done()) ++t.running;
      const double r = opt->stats().residual;  // = relativeResidual(), see finishOptimization
      t.residualMax = std::max(t.residualMax, r);
      if (r <= equilibriumTol_) ++t.inEquilibrium;
      t.newton += opt->stats().newtonIterations;
      t.mprgp += static_cast<double>(opt->stats().mprgpIterations);
      t.seconds += opt->stats().totalSeconds();
    }
  } else {
    for (const StrandResult& r : local_.results) {
      t.residualMax = std::max(t.residualMax, r.relativeResidual);
      if (r.relativeResidual <= equilibriumTol_) ++t.inEquilibrium;
      t.newton += r.newtonIterations;
      t.mprgp += r.mprgpIterations;
      t.seconds += r.seconds;
    }
  }
  return t;
}

// The largest distance of a vertex from its modelled position, in strand lengths, over this
// rank's simulated strands (0 before the simulation).
double DerModule::localDrift() const {
  double drift = 0.0;
  for (std::size_t i = 0; i < sims_.size(); ++i) {
    const auto& q = sims_[i]->q();
    const auto& x0 = local_.geometry[i].x;
    for (std::size_t v = 0; v < x0.size(); ++v) {
      const Vec3 x(q[4 * v], q[4 * v + 1], q[4 * v + 2]);
      drift = std::max(drift, (x - x0[v]).norm() / lengths_[i]);
    }
  }
  return drift;
}

void DerModule::addRow(run::RunContext& ctx, io::Diagnostics::Row& row) const {
  const Comm& comm = ctx.comm;
  // Optimisation columns (the state after the last optimisation step; zeros before).
  const Totals t = localTotals();
  const double newton = comm.sum(t.newton);
  const double mprgp = comm.sum(t.mprgp);
  row.emplace_back("phase", simulating() ? 1.0 : 0.0);
  row.emplace_back("alm_iteration", static_cast<double>(optimizeStep_));
  row.emplace_back("strands_running", static_cast<double>(comm.sum(t.running)));
  row.emplace_back("strands_in_equilibrium", static_cast<double>(comm.sum(t.inEquilibrium)));
  row.emplace_back("residual_max", comm.max(t.residualMax));
  row.emplace_back("newton_iterations", newton);
  row.emplace_back("mprgp_per_solve", newton > 0 ? mprgp / newton : 0.0);
  // Simulation columns.
  double energy = 0.0, residual = 0.0;
  for (std::size_t i = 0; i < sims_.size(); ++i) {
    if (sims_[i]->steps() > 0) {
      energy += sims_[i]->lastStats().energy();
      residual = std::max(residual, sims_[i]->lastStats().residualNorm);
    }
  }
  row.emplace_back("frame", static_cast<double>(frame_));
  row.emplace_back("drift_max", comm.max(localDrift()));
  row.emplace_back("energy", comm.sum(energy));
  row.emplace_back("newton_residual_max", comm.max(residual));
}

void DerModule::writeFrame(run::RunContext& ctx, io::FrameWriter& frames) {
  // Frames show the strands: at the end of the optimisation (time 0) and every simulated frame.
  if (!simulating() && !justOptimized_ && !(optimizationDone_ && frames.frames() == 0)) return;
  justOptimized_ = false;
  std::vector<double> pos, disp, bendRatio;
  std::vector<std::int64_t> strandId;  // an integer field in the XDMF (docs/output.md)
  std::vector<std::int64_t> sizes;
  for (std::size_t i = 0; i < local_.geometry.size(); ++i) {
    const int N = local_.geometry[i].vertices();
    sizes.push_back(N);
    const std::vector<double> q = sims_.empty() ? interleave(local_.geometry[i]) : sims_[i]->q();
    for (int v = 0; v < N; ++v) {
      for (int k = 0; k < 3; ++k) {
        pos.push_back(q[u(4 * v + k)]);
        disp.push_back(q[u(4 * v + k)] - local_.geometry[i].x[u(v)][k]);
      }
      strandId.push_back(local_.firstStrand + static_cast<std::int64_t>(i));
      double ratio = 1.0;
      if (!local_.rest.empty() && v > 0 && v < N - 1) ratio = restOf(i).cBend[u(v)] / material_.cBend;
      bendRatio.push_back(ratio);
    }
  }
  io::Polylines lines;
  lines.globalPoints = local_.vertexOffset.back();
  lines.pointOffset = local_.vertexOffset[u(local_.firstStrand)];
  lines.positions = pos;
  lines.globalLines = local_.totalStrands;
  lines.lineOffset = local_.firstStrand;
  lines.lineSizes = sizes;
  frames.beginFrame(time(), lines);
  frames.addField("displacement", disp, 3);
  frames.addField("strand", std::span<const std::int64_t>(strandId));
  frames.addField("bend_stiffness_ratio", bendRatio);
  frames.endFrame();
  (void)ctx;
}

// This rank's strands as in its frames (vertex positions, strand ids), with the vertex velocities
// once the forward simulation runs (zero before).
void DerModule::exportState(run::StateArrays& out) const {
  std::vector<double> pos, vel;
  std::vector<std::int64_t> strandId, sizes;
  for (std::size_t i = 0; i < local_.geometry.size(); ++i) {
    const int N = local_.geometry[i].vertices();
    sizes.push_back(N);
    const std::vector<double> q = sims_.empty() ? interleave(local_.geometry[i]) : sims_[i]->q();
    for (int v = 0; v < N; ++v) {
      for (int k = 0; k < 3; ++k) {
        pos.push_back(q[u(4 * v + k)]);
        vel.push_back(sims_.empty() ? 0.0 : sims_[i]->qdot()[u(4 * v + k)]);
      }
      strandId.push_back(local_.firstStrand + static_cast<std::int64_t>(i));
    }
  }
  out.add("positions", pos, 3);
  out.add("velocities", vel, 3);
  out.add("strand", std::span<const std::int64_t>(strandId));
  out.add("strand_vertices", std::span<const std::int64_t>(sizes));
  out.addScalar("simulating", simulating() ? 1.0 : 0.0);
}

std::string DerModule::summary() const {
  // Collective (every rank's runner calls it).
  std::ostringstream os;
  os << "der: " << local_.totalStrands << " strands, " << scheme_;
  if (comm_.any(!local_.results.empty() || !optimizers_.empty())) {
    const Totals t = localTotals();
    const std::int64_t eq = comm_.sum(t.inEquilibrium);
    const double newton = comm_.sum(t.newton);
    const double mprgp = comm_.sum(t.mprgp);
    const double residualMax = comm_.max(t.residualMax);
    const double seconds = t.seconds;
    const double S = static_cast<double>(local_.totalStrands);
    os << ": " << eq << " of " << local_.totalStrands << " strands in equilibrium (relative residual <= "
       << equilibriumTol_ << "), max relative residual " << residualMax << ", " << newton / S
       << " Newton iterations per strand, " << (newton > 0 ? mprgp / newton : 0.0) << " MPRGP iterations per solve, "
       << comm_.max(seconds) << " s of optimisation on the busiest rank";
    if (!strandFile_.empty()) os << "; optimised strands in " << strandFile_;
  }
  if (frames_ > 0) {
    os << "\nder: " << frame_ << " frames simulated; largest vertex distance from the modelled shape "
       << comm_.max(localDrift()) << " strand lengths";
  }
  return os.str();
}

}  // namespace kinema::der
