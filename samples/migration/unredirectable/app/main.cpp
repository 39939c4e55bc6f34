// Host driver: picks the code object for the device's architecture from the
// directory the build wrote them to, and calls the library. Without a GPU the
// calls fail and it says so; the build is the point.
#include <cstdio>
#include <string>

#include "../src/unr.h"

extern "C" int hipModuleLoad(void** module, const char* path);

int main(int argc, char** argv) {
  std::string arch = argc > 1 ? argv[1] : UNR_FIRST_TARGET;
  std::string path = std::string(UNR_CODEOBJ_DIR) + "/unr_scale-" + arch + ".hsaco";
  void* module = nullptr;
  int err = hipModuleLoad(&module, path.c_str());
  err |= unr_axpy(1.0f, nullptr, nullptr, 0, nullptr);
  std::printf("unr_app (%s): %s, status %d\n", unr_variant(), path.c_str(), err);
  return 0;
}
