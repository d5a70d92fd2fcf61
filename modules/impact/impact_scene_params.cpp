// The impact module's scene and time-stepping parameters bound once (impact_scene_params.hpp).
#include "modules/impact/impact_scene_params.hpp"

#include <Eigen/Core>
#include <functional>

#include "framework/core/error.hpp"

namespace kinema::impact {

namespace {

using P = ModuleParams;

template <class T>
auto scene(T SceneParams::*member) {
  return field(&P::scene, member);
}
template <class T>
auto sim(T StepParams::*member) {
  return field(&P::sim, member);
}

// A key whose value is checked once read: `why` gives what follows the key in the InputError
// (empty: the value is fine). Keys bound before it are already read.
template <class F, class Declare>
void checked(ParamBindings<P>& r, std::string key, F fieldOf, Declare declare,
             std::function<std::string(const P&)> why) {
  r.custom(
      std::move(key),
      [fieldOf, declare](ParamSchema& s, const std::string& k, const P& d) -> ParamSpec& {
        P defaults = d;
        return declare(s, k, std::invoke(fieldOf, defaults));
      },
      [fieldOf, why](const Config& c, const std::string& k, P& o) {
        using T = std::decay_t<decltype(std::invoke(fieldOf, o))>;
        if constexpr (std::is_same_v<T, double>)
          std::invoke(fieldOf, o) = c.getReal(k);
        else
          std::invoke(fieldOf, o) = c.getRealList(k);
        const std::string w = why(o);
        if (!w.empty()) throw InputError(str(c.where(k), ": ", k, w));
      });
}

// The generators' keys: scene.type and each generator's arguments.
void bindGeneratorKeys(ParamBindings<P>& r) {
  using S = SceneParams;
  r.choice("scene.type", scene(&S::type),
           {"cradle", "pool_break", "wedge", "geyser", "jammed_box", "pile", "box_drop", "balls"},
           "the bodies: cradle (Newton's cradle of `count` balls), pool_break (a rack of `rows` rows and a "
           "cue ball), wedge (Fig. 3: a ball in a wedge of `angle_degrees`), geyser (the mini-geyser, our stand-in for Fig. 1), "
           "jammed_box (a rows x rows block filling a box), pile (`count` balls dropped into a box of "
           "`width`), box_drop (`count` rigid boxes onto a floor), balls (the explicit lists `balls`, `planes`)");
  r.integer("scene.dimension", scene(&S::dimension), Range::closed(2, 3),
            "2: discs in the plane, 3: spheres (cradle, pile)");
  r.integer("scene.count", scene(&S::count), Range::closed(1, 100000000),
            "balls of the cradle and the pile, boxes of box_drop");
  r.integer("scene.rows", scene(&S::rows), Range::closed(1, 10000),
            "rows of the pool rack; the jammed block is rows x rows");
  r.real("scene.radius", scene(&S::radius), Range::positive(), "ball radius r of the generators");
  r.real("scene.mass", scene(&S::mass), Range::positive(), "mass of every generated body");
  r.real("scene.speed", scene(&S::speed), Range::nonNegative(),
         "initial speed: the cradle's first ball, the cue ball, the wedge ball, the geyser projectile; "
         "standard deviation of the jammed block's velocities");
  r.real("scene.angle_degrees", scene(&S::angleDegrees), Range::open(0.0, 180.0), "opening angle θ of the wedge");
  r.boolean("scene.symmetric", scene(&S::symmetric),
            "geyser: projectile touching both plug balls (else one, at 20 deg)");
  r.real("scene.gap", scene(&S::gap), Range::nonNegative(),
         "geyser: the right wall at x = 4r + gap (0: the plug is jammed; 0.001: it is not)");
  checked(
      r, "scene.width", scene(&S::width),
      [](ParamSchema& s, const std::string& k, double d) -> ParamSpec& {
        return s.addReal(k, d, Range::positive(), "pile: inner width of the box");
      },
      [](const P& p) -> std::string {
        if (p.scene.type != "pile" || p.scene.width >= 2.0 * p.scene.radius) return "";
        return str(": the box (", p.scene.width, ") is narrower than one ball of radius ", p.scene.radius);
      });
  r.real("scene.spacing", scene(&S::spacing), Range::nonNegative(), "pile: lattice gap as a fraction of 2r");
  r.real("scene.jitter", scene(&S::jitter), Range::closed(0.0, 0.5),
         "pile: random offsets of positions and velocities, a fraction of r");
  r.integer("scene.seed", scene(&S::seed), Range::atLeast(0), "seed of the random jitter / velocities");
  checked(
      r, "scene.half_extents", scene(&S::halfExtents),
      [](ParamSchema& s, const std::string& k, const std::vector<double>& d) -> ParamSpec& {
        return s.addRealList(k, d, 3, "box_drop: half side lengths of the boxes");
      },
      [](const P& p) -> std::string {
        if (p.scene.type != "box_drop") return "";
        for (double x : p.scene.halfExtents)
          if (!(x > 0.0)) return " must be > 0";
        return "";
      });
}

// Type balls: the explicit lists of balls and half-spaces, checked entry by entry.
void bindBallLists(ParamBindings<P>& r) {
  using S = SceneParams;
  checked(
      r, "scene.balls", scene(&S::balls),
      [](ParamSchema& s, const std::string& k, const std::vector<double>& d) -> ParamSpec& {
        return s.addRealList(k, d, -1, "type balls: 8 numbers per ball: x y z vx vy vz radius mass (z, vz = 0 in 2D)");
      },
      [](const P& p) -> std::string {
        const std::vector<double>& b = p.scene.balls;
        if (p.scene.type != "balls") return "";
        if (b.empty() || b.size() % 8 != 0)
          return str(": 8 numbers per ball (x y z vx vy vz radius mass), got ", b.size());
        for (std::size_t k = 0; k < b.size() / 8; ++k) {
          const double* v = b.data() + 8 * k;
          if (!(v[6] > 0.0) || !(v[7] > 0.0))
            return str(": ball ", k, ": radius and mass must be > 0, got radius ", v[6], ", mass ", v[7]);
          if (p.scene.dimension == 2 && (v[2] != 0.0 || v[5] != 0.0)) return str(": ball ", k, ": z and vz must be 0 in 2D");
        }
        return "";
      });
  checked(
      r, "scene.planes", scene(&S::planes),
      [](ParamSchema& s, const std::string& k, const std::vector<double>& d) -> ParamSpec& {
        return s.addRealList(k, d, -1,
                             "type balls: 6 numbers per half-space: a point px py pz and the normal nx ny nz into the free side");
      },
      [](const P& p) -> std::string {
        const std::vector<double>& q = p.scene.planes;
        if (p.scene.type != "balls") return "";
        if (q.size() % 6 != 0) return str(": 6 numbers per plane, got ", q.size());
        for (std::size_t k = 0; k < q.size() / 6; ++k) {
          const double* v = q.data() + 6 * k;
          const Eigen::Vector3d n(v[3], v[4], v[5]);
          if (!(n.norm() > 0.0) || (p.scene.dimension == 2 && n[2] != 0.0))
            return str(": plane ", k, ": the normal must be nonzero (and in the plane in 2D)");
        }
        return "";
      });
}

// The stepper's keys (sim.*).
void bindStepKeys(ParamBindings<P>& r) {
  using T = StepParams;
  r.real("sim.dt", sim(&T::dt), Range::positive(), "time step Δt");
  r.integer("sim.steps", sim(&T::steps), Range::atLeast(0), "number of steps");
  r.real("sim.gravity", sim(&T::gravity), Range::any(), "gravitational acceleration g along −y (2D) or −z (3D)");
  r.real("sim.contact_tolerance", sim(&T::contactTolerance), Range::nonNegative(),
         "contact tolerance δ as a fraction of the smallest body size: a gap below it is a contact");
  r.integer("sim.closure_passes", sim(&T::closurePasses), Range::closed(1, 100),
            "impact solves per step: contacts the resolved velocities would close within the step are added "
            "and the step's impact is solved again from the pre-impact velocity");
  r.choice("sim.gravity_kick", sim(&T::gravityKick), {"split", "before"},
           "where the step's gravity impulse enters: split (half before the impact, half after, with a support "
           "projection for resting contacts: elastic impacts keep the shadow energy exactly) or before (all "
           "before the impact, the former order: +m|g|dt|u_n| per elastic bounce); docs/modules/impact.md, Energy");
  r.integer("sim.distributed_island_contacts", sim(&T::distributedIslandContacts), Range::atLeast(0),
            "islands with at least this many contacts are resolved by all ranks together (GR on a "
            "distributed Delassus operator; needs operator gr, restitution 1 and the petsc or trilinos "
            "backend at several ranks; equal to the one-rank result to the QP tolerance); 0 = never");
  r.real("sim.rebalance_imbalance", sim(&T::rebalanceImbalance), Range::atLeast(1.0),
         "several ranks: the bodies' subdomains (recursive coordinate bisection weighted by contacts) are "
         "rebuilt when the most loaded rank carries more than this times the mean load");
  r.choice("sim.broad_phase", sim(&T::broadPhase), {"spatial_hash", "sweep_and_prune"},
           "broad phase of the contact detection (framework/geometry)");
  r.boolean("sim.rotating_spheres", sim(&T::rotatingSpheres),
            "3D spheres as rigid bodies (6 DOFs, I = 2/5 m r²; needed for friction to spin them) instead of "
            "point masses");
}

}  // namespace

const ParamBindings<P>& moduleBindings() {
  static const ParamBindings<P> b = [] {
    ParamBindings<P> r;
    bindGeneratorKeys(r);
    bindBallLists(r);
    bindStepKeys(r);
    return r;
  }();
  return b;
}

ModuleParams readModuleParams(const Config& c) { return moduleBindings().read(c, kModulePrefix); }

}  // namespace kinema::impact
