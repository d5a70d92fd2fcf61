#pragma once
// Fragments: connected components of the alive-bond graph (§6.3-6.4; README decision 43: T-F5,
// T-F7, T-B2). Diagnostics only: every rank's alive bonds are gathered to every rank (allgatherv)
// and joined with a union-find over the global particle indices, so the result is identical on
// every rank and independent of the rank count. A particle without alive bonds is a fragment of
// its own. A component's label is its smallest global index.
//
// Fracture frame of three-point bending (T-F5, defined once for every resolution): the first frame
// in which the largest fragment no longer contains particles from both ends of the beam, the ends
// being the particles whose rest position pRef lies within endFraction (length along `axis`) of the
// beam's extreme coordinates (for the default geometry, 0.1 L is the overhang beyond the
// supports). fractureSplit() reports whether that has happened in the current state.
#include <vector>

#include "framework/core/comm.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

struct FragmentStats {
  long count = 0;                  // connected components (single particles included)
  long largest = 0;                // particles in the largest component
  GlobalId largestLabel = -1;      // its label (smallest global index; ties: the smaller label)
  double largestMass = 0;
  double totalMass = 0;
  std::vector<long> sizes;         // particles per component, descending
  std::vector<double> masses;      // mass per component, descending
  // Components holding at least `fraction` of the total mass.
  long countWithMassFraction(double fraction) const;
};

// Collective. `globalParticles` = Domain::globalParticles(); owned particles carry their global
// index in s.P.gid. With `ownedLabels`, the label of each owned particle (local order).
FragmentStats computeFragments(const System& s, const Comm& comm, long globalParticles,
                               std::vector<GlobalId>* ownedLabels = nullptr);

// Collective. True when the largest fragment (label `stats.largestLabel`) does not contain both a
// particle of the low end and one of the high end of the body along `axis` (see above).
bool fractureSplit(const System& s, const Comm& comm, const FragmentStats& stats,
                   const std::vector<GlobalId>& ownedLabels, int axis = 0, double endFraction = 0.1);

}  // namespace kinema::bdem
