extern "C" int lib_marker();
extern "C" int host_entry() { return lib_marker(); }
