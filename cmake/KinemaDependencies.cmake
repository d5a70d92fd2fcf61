# Finds every dependency Kinema builds against. A missing one stops the configure with the
# Debian package that provides it; no backend or feature is ever dropped silently.

function(kinema_missing what package)
  message(FATAL_ERROR
    "Kinema needs ${what}, which was not found.\n"
    "  Install the Debian package '${package}' (or run: scripts/install-deps).")
endfunction()

find_package(MPI COMPONENTS C CXX)
if(NOT MPI_FOUND)
  kinema_missing("MPI (OpenMPI)" "libopenmpi-dev openmpi-bin")
endif()

find_package(Eigen3 3.4 NO_MODULE)
if(NOT Eigen3_FOUND)
  kinema_missing("Eigen >= 3.4" "libeigen3-dev")
endif()

find_package(yaml-cpp)
if(NOT yaml-cpp_FOUND)
  kinema_missing("yaml-cpp" "libyaml-cpp-dev")
endif()

set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 COMPONENTS C)
if(NOT HDF5_FOUND)
  kinema_missing("HDF5 (parallel, OpenMPI build)" "libhdf5-openmpi-dev")
endif()
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "Kinema needs the MPI-parallel HDF5, but found a serial one (${HDF5_INCLUDE_DIRS}).\n"
    "  Install the Debian package 'libhdf5-openmpi-dev' (or run: scripts/install-deps).")
endif()
add_library(kinema_hdf5 INTERFACE)
target_include_directories(kinema_hdf5 SYSTEM INTERFACE ${HDF5_INCLUDE_DIRS})
target_link_libraries(kinema_hdf5 INTERFACE ${HDF5_LIBRARIES})
target_compile_definitions(kinema_hdf5 INTERFACE ${HDF5_DEFINITIONS})

find_package(PkgConfig)
if(NOT PkgConfig_FOUND)
  kinema_missing("pkg-config" "pkg-config")
endif()
pkg_check_modules(PETSc QUIET IMPORTED_TARGET PETSc)
if(NOT PETSc_FOUND)
  kinema_missing("PETSc (found through pkg-config 'PETSc')" "libpetsc-real-dev")
endif()

pkg_check_modules(CLP QUIET IMPORTED_TARGET clp)
if(NOT CLP_FOUND)
  kinema_missing("COIN-OR Clp (pkg-config 'clp')" "coinor-libclp-dev")
endif()

find_package(Trilinos QUIET COMPONENTS Teuchos Tpetra Belos Ifpack2 MueLu Amesos2)
if(NOT Trilinos_FOUND)
  kinema_missing("Trilinos (Tpetra, Belos, Ifpack2, MueLu, Amesos2)" "trilinos-all-dev")
endif()

find_package(GTest)
if(NOT GTest_FOUND)
  kinema_missing("GoogleTest" "libgtest-dev")
endif()

find_package(benchmark)
if(NOT benchmark_FOUND)
  kinema_missing("Google Benchmark" "libbenchmark-dev")
endif()

find_program(KINEMA_MPIEXEC NAMES mpiexec mpirun HINTS ${MPIEXEC_EXECUTABLE})
if(NOT KINEMA_MPIEXEC)
  kinema_missing("mpiexec" "openmpi-bin")
endif()

# Interface targets for the backends (and the benchmarks that call the libraries directly).
# Include directories are SYSTEM so the libraries' own warnings do not count against ours.
add_library(kinema_petsc INTERFACE)
target_include_directories(kinema_petsc SYSTEM INTERFACE ${PETSc_INCLUDE_DIRS})
target_link_libraries(kinema_petsc INTERFACE PkgConfig::PETSc MPI::MPI_CXX)
add_library(kinema_trilinos INTERFACE)
target_include_directories(kinema_trilinos SYSTEM INTERFACE ${Trilinos_INCLUDE_DIRS} ${Trilinos_TPL_INCLUDE_DIRS})
target_link_libraries(kinema_trilinos INTERFACE ${Trilinos_LIBRARIES} ${Trilinos_TPL_LIBRARIES} MPI::MPI_CXX)

# Teuchos 13.2 declares a constructor with a template-id (`AbstractArrayValidator<V, E>();`), which
# C++20 (DR 2237) rejects and g++ 12 treats as an error. A copy of that one header with the
# declaration spelled `AbstractArrayValidator();` (same meaning) is generated in the build tree and
# force-included first, so its include guard makes Trilinos' own copy a no-op wherever it is included.
set(_kinema_teuchos_fix ${PROJECT_BINARY_DIR}/trilinos_cxx20)
set(_kinema_teuchos_hdr Teuchos_StandardParameterEntryValidators.hpp)
find_file(_kinema_teuchos_src ${_kinema_teuchos_hdr} PATHS ${Trilinos_INCLUDE_DIRS} NO_DEFAULT_PATH)
if(NOT _kinema_teuchos_src)
  message(FATAL_ERROR "Kinema: ${_kinema_teuchos_hdr} not found in ${Trilinos_INCLUDE_DIRS} (trilinos-all-dev)")
endif()
file(READ ${_kinema_teuchos_src} _kinema_text)
string(REPLACE "AbstractArrayValidator<ValidatorType, EntryType>();" "AbstractArrayValidator();"
       _kinema_text "${_kinema_text}")
file(WRITE ${_kinema_teuchos_fix}/${_kinema_teuchos_hdr}.new "${_kinema_text}")
file(COPY_FILE ${_kinema_teuchos_fix}/${_kinema_teuchos_hdr}.new ${_kinema_teuchos_fix}/${_kinema_teuchos_hdr}
     ONLY_IF_DIFFERENT)
target_compile_options(kinema_trilinos INTERFACE -include ${_kinema_teuchos_fix}/${_kinema_teuchos_hdr})

message(STATUS "Kinema: MPI ${MPI_CXX_VERSION}, Eigen ${Eigen3_VERSION}, HDF5 ${HDF5_VERSION} (parallel), "
               "PETSc ${PETSc_VERSION}, Trilinos ${Trilinos_VERSION}, Clp ${CLP_VERSION}")
