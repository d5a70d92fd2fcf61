# What `cmake --install` writes besides the targets (docs/installing.md):
#   <prefix>/lib/cmake/Kinema/   KinemaConfig.cmake, KinemaConfigVersion.cmake, KinemaTargets.cmake
#                                (Kinema::framework, Kinema::module_<m>, Kinema::backend_<b>,
#                                Kinema::kinema, Kinema::cli), KinemaFunctions.cmake and
#                                KinemaPluginEntry.cmake (kinema_add_module / kinema_add_backend
#                                for out-of-tree plugins)
#   <prefix>/lib/pkgconfig/kinema.pc
# Every path inside them is relative to the file, so an installed tree can be moved.
include(CMakePackageConfigHelpers)

set(KINEMA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kinema)
get_property(KINEMA_INSTALLED_MODULES GLOBAL PROPERTY KINEMA_MODULES)
get_property(KINEMA_INSTALLED_BACKENDS GLOBAL PROPERTY KINEMA_BACKENDS)

install(EXPORT KinemaTargets NAMESPACE Kinema:: DESTINATION ${KINEMA_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KinemaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/KinemaConfig.cmake
  INSTALL_DESTINATION ${KINEMA_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR CMAKE_INSTALL_DATADIR)
# 0.x: a plugin must be built against the same minor version (framework/core/plugins.cpp checks
# the exact version it was built against).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/KinemaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/package/KinemaConfig.cmake
  ${PROJECT_BINARY_DIR}/package/KinemaConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/KinemaFunctions.cmake
  ${PROJECT_SOURCE_DIR}/cmake/KinemaPluginEntry.cmake
  DESTINATION ${KINEMA_INSTALL_CMAKEDIR})

# pkg-config: the prefix is found from the .pc file's own place (${pcfiledir}), since the install
# prefix is chosen at install time. MPI comes from the MPI this build found (not every MPI ships
# a .pc file); Eigen and yaml-cpp through their own .pc files.
set(_kinema_pc_cflags "")
foreach(dir IN LISTS MPI_CXX_INCLUDE_DIRS)
  string(APPEND _kinema_pc_cflags " -I${dir}")
endforeach()
set(_kinema_pc_libs "-lkinema_all")
foreach(m IN LISTS KINEMA_INSTALLED_MODULES)
  string(APPEND _kinema_pc_libs " -lkinema_module_${m}")
endforeach()
foreach(b IN LISTS KINEMA_INSTALLED_BACKENDS)
  string(APPEND _kinema_pc_libs " -lkinema_backend_${b}")
endforeach()
string(APPEND _kinema_pc_libs " -lkinema_framework")
foreach(lib IN LISTS MPI_CXX_LIBRARIES)
  string(APPEND _kinema_pc_libs " ${lib}")
endforeach()
file(RELATIVE_PATH _kinema_pc_up ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" _kinema_pc_up "${_kinema_pc_up}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/kinema.pc.in ${PROJECT_BINARY_DIR}/package/kinema.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/kinema.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
