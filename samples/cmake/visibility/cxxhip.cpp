#include "../common/saxpy.hip"
extern "C" __attribute__((visibility("default"))) int cxxhip_exported(void) { return 1; }
extern "C" int cxxhip_internal(void) { return 2; }
