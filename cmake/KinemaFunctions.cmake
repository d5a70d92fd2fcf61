# kinema_add_module / kinema_add_backend for projects built against an installed Kinema
# (find_package(Kinema) includes this file; docs/writing-a-module.md). The same lines as in the
# Kinema tree, but here a module or backend is a plugin: a shared library linking Kinema::framework
# that exports kinema_plugin_version() and kinema_plugin_register() (which calls the same
# kinema::registerModule_<name>() / registerBackend_<name>() an in-tree one has). The kinema CLI
# loads it from KINEMA_PLUGIN_PATH or `kinema --plugin-path`; `kinema list` shows where it came from.
include(${CMAKE_CURRENT_LIST_DIR}/KinemaPluginEntry.cmake)

# kinema_add_module(<name> [PLUGIN] SOURCES ... [LIBS ...]): target kinema_module_<name>, file
# libkinema_module_<name>.so. PLUGIN is accepted (and implied) so that the line of an in-tree
# plugin works here unchanged. LIBS are linked PRIVATE.
function(kinema_add_module name)
  cmake_parse_arguments(ARG "PLUGIN" "" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "kinema_add_module(${name}): no SOURCES")
  endif()
  add_library(kinema_module_${name} SHARED ${ARG_SOURCES})
  target_link_libraries(kinema_module_${name} PUBLIC Kinema::framework PRIVATE ${ARG_LIBS})
  kinema_plugin_entry(kinema_module_${name} registerModule_${name})
endfunction()

# kinema_add_backend(<name> [PLUGIN] SOURCES ... [LIBS ...]): target kinema_backend_<name>, a plugin
# implementing framework/la; the backend's own libraries go in LIBS (PRIVATE).
function(kinema_add_backend name)
  cmake_parse_arguments(ARG "PLUGIN" "" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "kinema_add_backend(${name}): no SOURCES")
  endif()
  add_library(kinema_backend_${name} SHARED ${ARG_SOURCES})
  target_link_libraries(kinema_backend_${name} PUBLIC Kinema::framework PRIVATE ${ARG_LIBS})
  kinema_plugin_entry(kinema_backend_${name} registerBackend_${name})
endfunction()
