// A kernel of its own (renamed so it does not clash with the archive's) and a
// call into the archive, so the archive's object is linked in.
#define saxpy app_saxpy
#include "../common/saxpy.hip"
extern "C" int lib_marker();
extern "C" int app_entry() { return lib_marker(); }
