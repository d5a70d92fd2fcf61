// DerModule's parameters, bound once (framework/core/param_binding.hpp; docs/writing-a-module.md
// §2): every der.* key with its default, range, help and the field of DerParams it fills. The
// optimiser's keys under der.optimize are optimizer_params.cpp's.
#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "modules/der/der_module.hpp"
#include "modules/der/der_params.hpp"

namespace kinema::der {

namespace {

using P = DerParams;

template <class T>
auto strands(T StrandParams::*member) {
  return field(&P::strands, member);
}
template <class T>
auto material(T Material::*member) {
  return field(&P::material, member);
}
template <class T>
auto sim(T ForwardSimOptions::*member) {
  return field(&P::sim, member);
}

// The keys before der.optimize's own (optimizerBindings()), and those after them: `kinema help`
// lists them in this order.
const ParamBindings<P>& sceneBindings() {
  static const ParamBindings<P> b = [] {
    using S = StrandParams;
    ParamBindings<P> r;
    r.choice("strands.source", strands(&S::source), {"vertical", "horizontal", "helix", "wisps", "hair", "file"},
             "where the strands come from: a generator (vertical, horizontal, helix, wisps), a .hair file "
             "(der.strands.file), or a Kinema strand-set file written by an optimisation (strands.h5)");
    r.integer("strands.vertices", strands(&S::vertices), Range::closed(3, 1000000),
              "vertices per generated strand (N; the paper's single-strand scenes use 30)");
    r.real("strands.length", strands(&S::length), Range::leftOpen(0.0, 1e3), "length of a generated strand [m]");
    r.integer("strands.count", strands(&S::count), Range::closed(1, 100000000), "number of strands of the wisps generator");
    r.integer("strands.seed", strands(&S::seed), Range::closed(0, 4294967295.0), "random seed of the wisps generator");
    r.real("strands.helix_radius", strands(&S::helixRadius), Range::positive(), "radius of the helix generator's coil [m]");
    r.real("strands.helix_pitch", strands(&S::helixPitch), Range::nonNegative(), "axial drop per turn of the helix [m]");
    r.real("strands.helix_turns", strands(&S::helixTurns), Range::positive(), "turns of the helix");
    r.string("strands.file", strands(&S::file),
             "path of the .hair file (source hair) or strand-set file (source file)");
    r.real("strands.scale", strands(&S::scale), Range::positive(),
           "factor applied to .hair coordinates on reading (hair models are often in cm: 0.01)");

    r.real("material.radius", material(&Material::radius), Range::leftOpen(0.0, 1.0),
           "strand radius r [m] (hair: about 50 um)");
    r.real("material.density", material(&Material::density), Range::leftOpen(0.0, 1e5),
           "density rho_d [kg/m^3] (hair: 1300)");
    r.custom(
        "material.gravity",
        [](ParamSchema& s, const std::string& k, const P& d) -> ParamSpec& {
          const Vec3& g = d.material.gravity;
          return s.addRealList(k, {g.x(), g.y(), g.z()}, 3, "gravitational acceleration [m/s^2]");
        },
        [](const Config& c, const std::string& k, P& o) {
          const auto& g = c.getRealList(k);
          o.material.gravity = Vec3(g[0], g[1], g[2]);
        });
    r.real("material.c_stretch", material(&Material::cStretch), Range::leftOpen(0.0, 1e15),
           "stretching stiffness c_st [Pa] (Eq. 2)");
    r.real("material.c_bend", material(&Material::cBend), Range::leftOpen(0.0, 1e15), "bending stiffness c_be [Pa] (Eq. 5)");
    r.real("material.c_twist", material(&Material::cTwist), Range::leftOpen(0.0, 1e15),
           "twisting stiffness c_tw [Pa] (Eq. 7)");

    r.boolean("optimize.enabled", &P::optimize,
              "optimise rest state and stiffness for static equilibrium before simulating; false = the "
              "naive initialisation (rest state = modelled shape), the paper's first baseline");
    return r;
  }();
  return b;
}

const ParamBindings<P>& runBindings() {
  static const ParamBindings<P> b = [] {
    ParamBindings<P> r;
    r.real("optimize.equilibrium_tolerance", &P::equilibriumTolerance, Range::open(0.0, 1.0),
           "relative residual ||M^-1/2 f|| / ||M^-1/2 f_ext|| below which a strand counts as in "
           "equilibrium in the summary and the diagnostics (reporting only)");
    r.boolean("optimize.write_strand_file", &P::writeStrandFile,
              "write the optimised strands (rest state, stiffness, per-strand results) to <output>/strands.h5, "
              "which a forward run loads with der.strands.source: file");

    r.integer("simulate.frames", &P::frames, Range::closed(0, 100000000),
              "frames of forward simulation after the optimisation (0: none)");
    r.real("simulate.fps", &P::fps, Range::leftOpen(0.0, 1e6), "frames per simulated second (paper: 60)");
    r.integer("simulate.steps_per_frame", &P::stepsPerFrame, Range::closed(1, 100000),
              "implicit steps per frame (paper: 4, or 12 for the hair scenes)");
    r.integer("simulate.newton_iterations", sim(&ForwardSimOptions::maxNewtonIterations), Range::closed(1, 1000),
              "Newton iterations per step (1 = linearised backward Euler, as in the paper)");
    r.real("simulate.newton_rtol", sim(&ForwardSimOptions::relativeTolerance), Range::closed(0.0, 1.0),
           "relative gradient tolerance that ends a step's Newton iterations early (0: always run them all)");
    r.choiceOf("simulate.curvature", sim(&ForwardSimOptions::model),
               {{"4d", CurvatureModel::FourD}, {"2d_averaged", CurvatureModel::TwoDAveraged}},
               "bending model of the forward simulation: the paper's 4D curvature, or 2D curvature with "
               "averaged frames [7] (which loses its bending force when frames flip, Fig. 2)");
    r.choice("simulate.root_motion", &P::rootMotion, {"none", "shake", "rotate", "lift"},
             "prescribed root motion: none; shake = x offset amplitude sin(2 pi t / period); rotate = "
             "rotation about the vertical axis by amplitude sin(2 pi t / period) rad; lift = rise by "
             "amplitude over the duration; every motion stops after der.simulate.root_duration");
    r.real("simulate.root_amplitude", &P::rootAmplitude, Range::any(), "root motion amplitude [m] or [rad]");
    r.real("simulate.root_period", &P::rootPeriod, Range::positive(), "root motion period [s]");
    r.real("simulate.root_duration", &P::rootDuration, Range::nonNegative(),
           "time after which the root stops moving and rests [s] (shake and rotate stop at the "
           "nearest whole period before it)");
    return r;
  }();
  return b;
}

const char* const kPrefix = "der";
const char* const kOptimize = "der.optimize";

}  // namespace

void DerModule::declare(ParamSchema& schema) {
  const DerParams d;
  sceneBindings().declare(schema, kPrefix, d);
  optimizerBindings().declare(schema, kOptimize);
  runBindings().declare(schema, kPrefix, d);
}

DerParams readDerParams(const Config& c) {
  DerParams p;
  sceneBindings().readInto(c, kPrefix, p);
  runBindings().readInto(c, kPrefix, p);
  p.optimizer = optimizerBindings().read(c, kOptimize);
  return p;
}

void DerModule::readParameters(const Config& c) {
  const DerParams p = readDerParams(c);
  strands_ = p.strands;
  optimize_ = p.optimize;
  material_ = p.material;
  optOptions_ = p.optimizer;
  scheme_ = p.optimize ? schemeName(optOptions_.scheme) : "naive";
  equilibriumTol_ = p.equilibriumTolerance;
  writeStrandFile_ = p.writeStrandFile;
  frames_ = p.frames;
  fps_ = p.fps;
  stepsPerFrame_ = p.stepsPerFrame;
  simOptions_.maxNewtonIterations = p.sim.maxNewtonIterations;
  simOptions_.relativeTolerance = p.sim.relativeTolerance;
  simOptions_.model = p.sim.model;
  rootMotion_ = p.rootMotion;
  rootAmplitude_ = p.rootAmplitude;
  rootPeriod_ = p.rootPeriod;
  rootDuration_ = p.rootDuration;
}

}  // namespace kinema::der
