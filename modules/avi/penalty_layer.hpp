#pragma once
// Nested discrete penalty layers (the paper's §5; modules/avi/README.md, decisions 2 and 5): layer
// l = 1, 2, ... is active when the distance d between two primitives is below 2 eta / l and stores
// V_l = l^3 k s g^2 with g = d - 2 eta / l (no 1/2; s = restitution factor, section 3.1). The sum
// over all layers B(d) diverges like (4/3) k eta^4 / d^2 as d -> 0.
namespace kinema::avi {

// Onset distance d_l = 2 eta / l.
double layerOnset(double eta, int l);
// g_{eta/l}(d) = d - 2 eta / l.
double layerGap(double d, double eta, int l);
// V_l(d) (0 when g >= 0), with s = 1.
double layerEnergy(double d, double eta, double k, int l);
// dV_l/dd (<= 0; 0 when g >= 0).
double layerForce(double d, double eta, double k, int l);
// Number of active layers at distance d: #{l >= 1 : l < 2 eta / d} = ceil(2 eta / d) - 1.
int activeLayerCount(double d, double eta);
// B(d) = sum over active layers of V_l(d).
double barrierEnergy(double d, double eta, double k);
// Step of layer l for a pair with smallest free vertex mass mMin (README decision 5):
// h_l = C_safe sqrt(mMin / (4 k)) l^(-3/2).
double layerStep(double cSafe, double mMin, double k, int l);
// Rounds a step down to the dyadic lattice base * 2^-m (m >= 0 the smallest with base 2^-m <= h):
// README decision 57, step 1.
double dyadicStep(double h, double base);

}  // namespace kinema::avi
