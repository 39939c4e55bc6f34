#include "../common/saxpy.hip"
extern "C" __attribute__((visibility("default"))) int hiplang_exported(void) { return 1; }
extern "C" int hiplang_internal(void) { return 2; }
