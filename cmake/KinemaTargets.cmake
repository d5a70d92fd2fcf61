# Helpers that keep each module, backend and test to one line of CMake.

# kinema_add_module(<name> SOURCES ...): a module library. Its registration function
# `kinema::registerModule_<name>()` is called by the app and the tests (see apps/CMakeLists.txt).
function(kinema_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(kinema_module_${name} STATIC ${ARG_SOURCES})
  target_link_libraries(kinema_module_${name} PUBLIC kinema_framework ${ARG_LIBS})
  set_property(GLOBAL APPEND PROPERTY KINEMA_MODULES ${name})
endfunction()

# kinema_add_backend(<name> SOURCES ... LIBS ...): a backend of framework/la, registered by
# `kinema::registerBackend_<name>()`. Only backends link backend libraries.
function(kinema_add_backend name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(kinema_backend_${name} STATIC ${ARG_SOURCES})
  target_link_libraries(kinema_backend_${name} PUBLIC kinema_framework PRIVATE ${ARG_LIBS})
  set_property(GLOBAL APPEND PROPERTY KINEMA_BACKENDS ${name})
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
