// Host program for the device-only code object: it checks the file the build
// produced and hands it to hipModuleLoad. Without a GPU the load fails and it
// says so; the build is the point.
#include <cstdio>
#include <cstring>

extern "C" int hipModuleLoad(void** module, const char* path);
extern "C" int tp_axpby(float a, const float* x, float b, float* y, unsigned n, void* stream);

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : TP_MODULE_PATH;
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) {
    std::printf("tp_loader: cannot open %s\n", path);
    return 1;
  }
  char magic[24] = {};
  size_t got = std::fread(magic, 1, sizeof magic, f);
  std::fclose(f);
  bool bundle = got == sizeof magic && std::memcmp(magic, "__CLANG_OFFLOAD_BUNDLE__", sizeof magic) == 0;
  bool elf = got >= 4 && std::memcmp(magic, "\x7f" "ELF", 4) == 0;
  void* module = nullptr;
  int err = hipModuleLoad(&module, path);
  std::printf("tp_loader: %s is %s; hipModuleLoad status %d, tp_axpby status %d\n", path,
              bundle ? "an offload bundle" : elf ? "a code object" : "not a code object", err,
              tp_axpby(1.0f, nullptr, 1.0f, nullptr, 0, nullptr));
  return bundle || elf ? 0 : 1;
}
