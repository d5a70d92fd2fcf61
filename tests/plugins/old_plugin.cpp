// A "plugin" built against another Kinema version (written by hand: the entry points of
// kinema_plugin_entry with a version that is never this one): loading it must be refused before
// kinema_plugin_register runs.
#include <cstdlib>

extern "C" const char* kinema_plugin_version() { return "0.0.0"; }
extern "C" void kinema_plugin_register() { std::abort(); }
