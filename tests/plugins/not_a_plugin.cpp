// A shared library without the plugin entry points: loading it as a plugin must be refused.
extern "C" int kinema_test_not_a_plugin() { return 42; }
