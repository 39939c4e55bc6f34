#include "../common/saxpy.hip"
extern "C" int lib_marker() { return 1; }
