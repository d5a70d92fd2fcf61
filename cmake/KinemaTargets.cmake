# Helpers that keep each module, backend and test to one line of CMake.

include(KinemaPluginEntry)   # kinema_plugin_entry(<target> <function>)

# Installs a built-in module or backend library into the `KinemaTargets` export set (as
# Kinema::module_<name> / Kinema::backend_<name>, cmake/KinemaInstall.cmake) with the headers of its
# folder under include/kinema/<its path in the tree> and its scenes under share/kinema/.
function(_kinema_install_component target export_name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  install(TARGETS ${target} EXPORT KinemaTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kinema/${rel}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "scenes" EXCLUDE)
  if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/scenes)
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/scenes DESTINATION ${CMAKE_INSTALL_DATADIR}/kinema/${rel})
  endif()
endfunction()

# kinema_add_module(<name> [PLUGIN] SOURCES ...): a module library (shared, so that out-of-tree
# plugins and the Python package share one registry with the CLI). Its registration function
# `kinema::registerModule_<name>()` is called by the app and the tests (see apps/CMakeLists.txt);
# with PLUGIN it is left out of the built-ins (and out of the install) and called when the library
# is loaded as a plugin (KINEMA_PLUGIN_PATH, docs/writing-a-module.md). Out of tree, an installed
# Kinema defines a kinema_add_module of its own that builds plugins (KinemaFunctions.cmake).
function(kinema_add_module name)
  cmake_parse_arguments(ARG "PLUGIN" "" "SOURCES;LIBS" ${ARGN})
  add_library(kinema_module_${name} SHARED ${ARG_SOURCES})
  target_link_libraries(kinema_module_${name} PUBLIC kinema_framework ${ARG_LIBS})
  if(ARG_PLUGIN)
    kinema_plugin_entry(kinema_module_${name} registerModule_${name})
  else()
    set_property(GLOBAL APPEND PROPERTY KINEMA_MODULES ${name})
    _kinema_install_component(kinema_module_${name} module_${name})
  endif()
endfunction()

# kinema_add_backend(<name> [PLUGIN] SOURCES ... LIBS ...): a backend of framework/la, registered by
# `kinema::registerBackend_<name>()`. Only backends link backend libraries, and PRIVATE: neither
# the exported Kinema::backend_<name> nor its users need PETSc or Trilinos headers. Backend headers
# include the backend library's, so they are not installed.
function(kinema_add_backend name)
  cmake_parse_arguments(ARG "PLUGIN" "" "SOURCES;LIBS" ${ARGN})
  add_library(kinema_backend_${name} SHARED ${ARG_SOURCES})
  target_link_libraries(kinema_backend_${name} PUBLIC kinema_framework PRIVATE ${ARG_LIBS})
  if(ARG_PLUGIN)
    kinema_plugin_entry(kinema_backend_${name} registerBackend_${name})
  else()
    set_property(GLOBAL APPEND PROPERTY KINEMA_BACKENDS ${name})
    set_target_properties(kinema_backend_${name} PROPERTIES EXPORT_NAME backend_${name})
    install(TARGETS kinema_backend_${name} EXPORT KinemaTargets
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endfunction()

# The OpenMPI flags CI needs when it runs as root in a container with 2 cores.
set(KINEMA_MPIEXEC_FLAGS --allow-run-as-root --oversubscribe --bind-to none)

# kinema_add_test(<name> SOURCES ... [RANKS 1 2 ...] [LABELS ...] [TIMEOUT s])
# One GoogleTest executable; one ctest entry per rank count (label `mpi` above one rank).
function(kinema_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;RANKS;LABELS;LIBS" ${ARGN})
  if(NOT ARG_RANKS)
    set(ARG_RANKS 1)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE kinema_all kinema_test_main ${ARG_LIBS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  foreach(np IN LISTS ARG_RANKS)
    if(np EQUAL 1)
      add_test(NAME ${name} COMMAND ${name})
      set(labels ${ARG_LABELS})
    else()
      add_test(NAME ${name}_np${np}
               COMMAND ${KINEMA_MPIEXEC} ${KINEMA_MPIEXEC_FLAGS} -n ${np} $<TARGET_FILE:${name}>)
      set(labels ${ARG_LABELS} mpi)
      set_tests_properties(${name}_np${np} PROPERTIES PROCESSORS ${np})
    endif()
    if(np EQUAL 1)
      set(tname ${name})
    else()
      set(tname ${name}_np${np})
    endif()
    set_tests_properties(${tname} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${labels}"
                         WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  endforeach()
endfunction()
