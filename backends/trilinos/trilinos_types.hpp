#pragma once
// Tpetra types of the Trilinos backend: double scalars, int local and long long global ordinals
// (the instantiation Debian's Trilinos 13.2 builds), the default (Serial) Kokkos node.
// la::GlobalIndex is int64_t; GO is long long: both 64-bit, so conversions are lossless.
#include <Teuchos_Comm.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_Operator.hpp>
#include <Tpetra_Vector.hpp>

#include <cstdint>
#include <type_traits>

#include "framework/la/index_map.hpp"

namespace kinema::la::trilinos {

using SC = double;
using LO = int;
using GO = long long;
using NO = Tpetra::Map<>::node_type;
using TMap = Tpetra::Map<LO, GO, NO>;
using TVec = Tpetra::Vector<SC, LO, GO, NO>;
using TMV = Tpetra::MultiVector<SC, LO, GO, NO>;
using TOp = Tpetra::Operator<SC, LO, GO, NO>;
using TImport = Tpetra::Import<LO, GO, NO>;

static_assert(sizeof(GO) == sizeof(GlobalIndex) && std::is_signed_v<GO>,
              "la::GlobalIndex must convert to Tpetra's global ordinal without loss");
// The views handed out by la::Vector are host pointers into Tpetra's storage: the node's memory
// must be host-accessible (true for the Serial node this backend is built for).
static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, NO::memory_space>::accessible,
              "the Trilinos backend needs a host-accessible Kokkos node (Serial or OpenMP)");

// The Tpetra side of one la::IndexMap, shared by every vector and matrix on it. Scalar global
// index of block b, component c is b*bs + c, as in the IndexMap.
struct Layout {
  IndexMapPtr map;
  Teuchos::RCP<const Teuchos::Comm<int>> comm;
  Teuchos::RCP<const TMap> owned;    // contiguous, this rank's owned scalars
  Teuchos::RCP<const TMap> overlap;  // owned scalars (in order) then the ghosts; == owned if none
  Teuchos::RCP<const TMap> ghost;    // the ghosts only (null if no rank has ghosts)
  Teuchos::RCP<const TImport> importer;  // owned -> ghost (null if no rank has ghosts)
};
using LayoutPtr = std::shared_ptr<const Layout>;

// Collective over the map's communicator.
LayoutPtr makeLayout(IndexMapPtr map);
Teuchos::RCP<const Teuchos::Comm<int>> teuchosComm(MPI_Comm comm);

}  // namespace kinema::la::trilinos
