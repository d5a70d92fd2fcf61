// Interleaving of strand geometry into the DER generalised coordinates q (paper §III).
#include "modules/der/strand.hpp"

#include "framework/core/error.hpp"

namespace kinema::der {

std::vector<double> interleave(const StrandGeometry& g) {
  const int N = g.vertices();
  if (N < 3) throw InputError(str("a strand needs at least 3 vertices, got ", N));
  if (static_cast<int>(g.theta.size()) != N - 1 && !g.theta.empty())
    throw InputError(str("a strand with ", N, " vertices needs ", N - 1, " edge angles, got ",
                         g.theta.size()));
  std::vector<double> q(dofCount(N));
  for (int v = 0; v < N; ++v)
    for (int c = 0; c < 3; ++c) q[xIndex(v, c)] = g.x[v][c];
  for (int j = 0; j < N - 1; ++j) q[thetaIndex(j)] = g.theta.empty() ? 0.0 : g.theta[j];
  return q;
}

StrandGeometry deinterleave(const std::vector<double>& q) {
  const int n = static_cast<int>(q.size());
  if (n < dofCount(3) || (n + 1) % 4 != 0)
    throw InputError(str("a DER coordinate vector has size 4N - 1 with N >= 3, got ", n));
  const int N = (n + 1) / 4;
  StrandGeometry g;
  g.x.resize(N);
  g.theta.resize(N - 1);
  for (int v = 0; v < N; ++v) g.x[v] = Vec3(q[xIndex(v, 0)], q[xIndex(v, 1)], q[xIndex(v, 2)]);
  for (int j = 0; j < N - 1; ++j) g.theta[j] = q[thetaIndex(j)];
  return g;
}

}  // namespace kinema::der
