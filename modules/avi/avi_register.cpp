// Registration of the avi module (temporary until avi_module.hpp exists).
namespace kinema {
void registerModule_avi() {}
}  // namespace kinema
