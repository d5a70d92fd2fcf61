#pragma once
// Preconditioners for the BCQP of the parameter optimisation (paper §V, §VI-E1), selectable
// by name: asc (active-set Cholesky, the paper's), none, jacobi, wjacobi (2 sweeps, omega 0.5),
// ssor (omega 1.2), ic0 (IC(0) on the pattern of A, named as the linear layer names IC(0)), mic
// (Bridson's modified IC), amg (the backend's AMG). Each is an la::Preconditioner that MPRGP applies
// "in face"; the band-based ones are active-set aware (filtered sweeps over the free mask).
// They are registered in la::customPreconditioners() as "der.<name>", for der's banded BCQP
// Hessian, and created like any preconditioner, by Backend::createPreconditioner.
#include <memory>
#include <string>
#include <vector>

#include "framework/la/backend.hpp"
#include "framework/la/preconditioner.hpp"
#include "modules/der/banded.hpp"

namespace kinema::der {

struct QpPreconditionerOptions {
  double pivotFloor = 1e-12;     // LDL^T pivot clamp, relative to max_k A_kk
  double wjacobiOmega = 0.5;     // weighted Jacobi damping
  int wjacobiSweeps = 2;
  double ssorOmega = 1.2;
  double micTau = 0.97;          // Bridson's modified IC
  double micSigma = 0.25;
};

// A preconditioner built from a banded SPD matrix. setMatrix() (re)computes it: for asc this is
// the one numeric LDL^T factorisation of the QP.
class BandedQpPreconditioner : public la::Preconditioner {
 public:
  virtual void setMatrix(const BandedSymmetric& A) = 0;
  // Takes the options that concern it (before the first setMatrix); InputError if out of range.
  virtual void configure(const QpPreconditionerOptions&) {}
  // Numeric factorisations performed so far (asc, ic, mic; 0 for the others).
  virtual long factorizations() const { return 0; }
};

// Registers der's preconditioners in la::customPreconditioners() (once; called by der's module
// registration, and by the two functions below for code that uses them without it).
void registerQpPreconditioners();

// The registry's name of BCQP preconditioner `name` ("der." + name).
std::string qpPreconditionerRegistryName(const std::string& name);

// Names accepted by makeQpPreconditioner: der's entries in la::customPreconditioners(), without
// their "der." prefix, in the registry's (alphabetical) order.
std::vector<std::string> qpPreconditionerNames();

// Creates `name` by backend.createPreconditioner("der." + name) and configures it with `options`.
// `backend` is used by "amg" only (it assembles A on the backend over one rank). The backend
// must outlive the preconditioner.
std::shared_ptr<BandedQpPreconditioner> makeQpPreconditioner(const std::string& name,
                                                             const QpPreconditionerOptions& options,
                                                             const la::Backend& backend);

}  // namespace kinema::der
