// Registration of the impact module. The resolver library (impact operators, desiderata checks,
// lineality detection) is being built first; the time-stepping simulator and its scenes, which
// the runner drives, are registered here once they exist (issue 6).
namespace kinema {
void registerModule_impact() {}
}  // namespace kinema
