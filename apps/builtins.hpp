#pragma once
// The registration of everything built into libkinema_all (Kinema::kinema): every module's and
// backend's registration function, called once (later calls do nothing). Defined in the file
// apps/CMakeLists.txt generates from the kinema_add_module / kinema_add_backend lines, so it is
// declared here, beside that library, and not in the framework, which knows no module.
namespace kinema {

void registerBuiltins();

}  // namespace kinema
