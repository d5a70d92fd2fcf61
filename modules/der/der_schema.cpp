// DerModule's parameters: every der.* key with its default, range and help (declare), and the
// module's fields filled from them (readParameters).
#include "framework/core/config.hpp"
#include "modules/der/der_module.hpp"

namespace kinema::der {

void DerModule::declare(ParamSchema& schema) {
  schema.addChoice("der.strands.source", "vertical", {"vertical", "horizontal", "helix", "wisps", "hair", "file"},
                   "where the strands come from: a generator (vertical, horizontal, helix, wisps), a .hair file "
                   "(der.strands.file), or a Kinema strand-set file written by an optimisation (strands.h5)");
  schema.addInt("der.strands.vertices", 30, Range::closed(3, 1000000),
                "vertices per generated strand (N; the paper's single-strand scenes use 30)");
  schema.addReal("der.strands.length", 0.2, Range::leftOpen(0.0, 1e3), "length of a generated strand [m]");
  schema.addInt("der.strands.count", 1, Range::closed(1, 100000000), "number of strands of the wisps generator");
  schema.addInt("der.strands.seed", 1, Range::closed(0, 4294967295.0), "random seed of the wisps generator");
  schema.addReal("der.strands.helix_radius", 0.01, Range::positive(), "radius of the helix generator's coil [m]");
  schema.addReal("der.strands.helix_pitch", 0.005, Range::nonNegative(), "axial drop per turn of the helix [m]");
  schema.addReal("der.strands.helix_turns", 10.0, Range::positive(), "turns of the helix");
  schema.addString("der.strands.file", "", "path of the .hair file (source hair) or strand-set file (source file)");
  schema.addReal("der.strands.scale", 1.0, Range::positive(),
                 "factor applied to .hair coordinates on reading (hair models are often in cm: 0.01)");

  schema.addReal("der.material.radius", 5e-5, Range::leftOpen(0.0, 1.0), "strand radius r [m] (hair: about 50 um)");
  schema.addReal("der.material.density", 1300.0, Range::leftOpen(0.0, 1e5), "density rho_d [kg/m^3] (hair: 1300)");
  schema.addRealList("der.material.gravity", {0.0, 0.0, -9.81}, 3, "gravitational acceleration [m/s^2]");
  schema.addReal("der.material.c_stretch", 1e9, Range::leftOpen(0.0, 1e15), "stretching stiffness c_st [Pa] (Eq. 2)");
  schema.addReal("der.material.c_bend", 1e9, Range::leftOpen(0.0, 1e15), "bending stiffness c_be [Pa] (Eq. 5)");
  schema.addReal("der.material.c_twist", 1e9, Range::leftOpen(0.0, 1e15), "twisting stiffness c_tw [Pa] (Eq. 7)");

  schema.addBool("der.optimize.enabled", true,
                 "optimise rest state and stiffness for static equilibrium before simulating; false = the "
                 "naive initialisation (rest state = modelled shape), the paper's first baseline");
  declareOptimizerParams(schema, "der.optimize");
  schema.addReal("der.optimize.equilibrium_tolerance", 1e-6, Range::open(0.0, 1.0),
                 "relative residual ||M^-1/2 f|| / ||M^-1/2 f_ext|| below which a strand counts as in "
                 "equilibrium in the summary and the diagnostics (reporting only)");
  schema.addBool("der.optimize.write_strand_file", true,
                 "write the optimised strands (rest state, stiffness, per-strand results) to <output>/strands.h5, "
                 "which a forward run loads with der.strands.source: file");

  schema.addInt("der.simulate.frames", 0, Range::closed(0, 100000000),
                "frames of forward simulation after the optimisation (0: none)");
  schema.addReal("der.simulate.fps", 60.0, Range::leftOpen(0.0, 1e6), "frames per simulated second (paper: 60)");
  schema.addInt("der.simulate.steps_per_frame", 4, Range::closed(1, 100000),
                "implicit steps per frame (paper: 4, or 12 for the hair scenes)");
  schema.addInt("der.simulate.newton_iterations", 1, Range::closed(1, 1000),
                "Newton iterations per step (1 = linearised backward Euler, as in the paper)");
  schema.addReal("der.simulate.newton_rtol", 0.0, Range::closed(0.0, 1.0),
                 "relative gradient tolerance that ends a step's Newton iterations early (0: always run them all)");
  schema.addChoice("der.simulate.curvature", "4d", {"4d", "2d_averaged"},
                   "bending model of the forward simulation: the paper's 4D curvature, or 2D curvature with "
                   "averaged frames [7] (which loses its bending force when frames flip, Fig. 2)");
  schema.addChoice("der.simulate.root_motion", "none", {"none", "shake", "rotate", "lift"},
                   "prescribed root motion: none; shake = x offset amplitude sin(2 pi t / period); rotate = "
                   "rotation about the vertical axis by amplitude sin(2 pi t / period) rad; lift = rise by "
                   "amplitude over the duration; every motion stops after der.simulate.root_duration");
  schema.addReal("der.simulate.root_amplitude", 0.02, Range::any(), "root motion amplitude [m] or [rad]");
  schema.addReal("der.simulate.root_period", 0.5, Range::positive(), "root motion period [s]");
  schema.addReal("der.simulate.root_duration", 1.0, Range::nonNegative(),
                 "time after which the root stops moving and rests [s] (shake and rotate stop at the "
                 "nearest whole period before it)");
}

void DerModule::readParameters(const Config& c) {
  source_ = c.getString("der.strands.source");
  material_.radius = c.getReal("der.material.radius");
  material_.density = c.getReal("der.material.density");
  const auto& g = c.getRealList("der.material.gravity");
  material_.gravity = Vec3(g[0], g[1], g[2]);
  material_.cStretch = c.getReal("der.material.c_stretch");
  material_.cBend = c.getReal("der.material.c_bend");
  material_.cTwist = c.getReal("der.material.c_twist");
  optOptions_ = readOptimizerOptions(c, "der.optimize");
  scheme_ = c.getBool("der.optimize.enabled") ? c.getString("der.optimize.scheme") : "naive";
  equilibriumTol_ = c.getReal("der.optimize.equilibrium_tolerance");
  writeStrandFile_ = c.getBool("der.optimize.write_strand_file");
  frames_ = c.getInt("der.simulate.frames");
  fps_ = c.getReal("der.simulate.fps");
  stepsPerFrame_ = static_cast<int>(c.getInt("der.simulate.steps_per_frame"));
  simOptions_.maxNewtonIterations = static_cast<int>(c.getInt("der.simulate.newton_iterations"));
  simOptions_.relativeTolerance = c.getReal("der.simulate.newton_rtol");
  simOptions_.model = c.getString("der.simulate.curvature") == "4d" ? CurvatureModel::FourD : CurvatureModel::TwoDAveraged;
  rootMotion_ = c.getString("der.simulate.root_motion");
  rootAmplitude_ = c.getReal("der.simulate.root_amplitude");
  rootPeriod_ = c.getReal("der.simulate.root_period");
  rootDuration_ = c.getReal("der.simulate.root_duration");
}

}  // namespace kinema::der
