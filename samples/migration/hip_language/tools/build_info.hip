// Host-only helper compiled as HIP (it shares the HIP sources' flags) but with no
// device code: the target is HIP_ARCHITECTURES FALSE and --cuda-host-only.
#include "hipla/hipla.h"

extern "C" const char* hipla_build_info() { return "hipla 1.0 (host helpers)"; }
