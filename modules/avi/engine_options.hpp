#pragma once
// Options of the asynchronous engine (the loop of README decision 4). The module declares
// them as parameters (avi_params.cpp) with defaults, ranges and help; the defaults here are the
// same numbers.
#include <string>

namespace kinema::avi {

struct EngineOptions {
  double cSafe = 0.05;        // layer step safety C_safe: h_l = C_safe sqrt(m_min/(4k)) l^-3/2
  double restitution = 1.0;   // e in [0, 1]: s = e on separating ticks, 1 otherwise (the paper's §7.1)
  double friction = 0.0;      // Coulomb mu >= 0, per layer (the paper's §7.2)
  double tauMinFactor = 1.0;  // tau_min = tauMinFactor * h_j of the guarded layer (the paper's §6)
  int maxLayer = 4096;        // deepest layer allowed; deeper is an Error (energy out of bounds)
  // Modes (tests C2 / C3 / E2, README decision 58):
  bool bruteForce = false;    // every layer 1..bruteForceLayers of every pair always on the queue
  int bruteForceLayers = 8;
  bool debugInvariant = false;  // check the certificate invariant (README decision 4) after every event
  bool restartClocks = false;   // NEGATIVE TEST ONLY: first tick of an activated layer at the
                                // activation time (violates clock integrity, the paper's §6)
  // Steps:
  double uniformStep = 0.0;   // > 0: every potential (material and every layer) uses this step:
                              // the synchronous variational integrator (leapfrog) baseline
  double dyadicBase = 0.0;    // > 0: every step rounded down to dyadicBase * 2^-m (README decision 57, step 1)
  // Broad phase (framework/geometry): "hash" (SpatialHash) or "all" (every pair, tiny scenes).
  std::string broadPhase = "hash";
  double margin = 0.0;        // broad-phase margin delta (> 0; 0 = 2 eta): pairs are candidates
                              // while no vertex has moved delta / 2 since the last rebuild
  bool recordKicks = false;   // keep a log of non-zero penalty kicks (tests)
  // Added by the engine (README decision): after a velocity change, a certificate's queued
  // expiry only moves earlier; a kick that moves a support vertex away from its slab face skips
  // the recomputation (the expiry can only grow). An early expiry is safe (ESTABLISH finds a new
  // slab). false: every certificate reading a kicked vertex is recomputed and moved (README decision 4).
  bool lazyCertificates = true;
  // Distributed runs (the Domain, README decision 57, step 2): how objects and contact clusters
  // are placed on ranks, "bisection" (recursive coordinate bisection of their centroids) or
  // "scene_order" (contiguous in scene order); object_partition.hpp.
  std::string partition = "bisection";
  // Distributed runs: the certificates of pairs touching a rank boundary run inside windows, and a
  // window ends no later than the first tick of the next layer each could activate (lookahead,
  // README decision 53); a rank that activates a layer whose tick falls inside the window (two
  // layers at once, rare) rolls every rank back. false: those certificates end windows.
  bool certLookahead = true;
};

}  // namespace kinema::avi
