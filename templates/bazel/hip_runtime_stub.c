/* rocm-spirv: stand-in for libamdhip64 when none was found at generation time.
 * Binaries link and run; registration is a no-op and launches fail with an error code. */
#include <stdio.h>

void** __hipRegisterFatBinary(const void* data) { (void)data; return 0; }
void __hipUnregisterFatBinary(void** handle) { (void)handle; }
void __hipRegisterFunction(void** h, const void* f, char* d, const char* n, unsigned t, void* a,
                           void* b, void* c, void* e, int* s) {
  (void)h; (void)f; (void)d; (void)n; (void)t; (void)a; (void)b; (void)c; (void)e; (void)s;
}
void __hipRegisterVar(void** h, void* v, char* d, const char* n, int e, unsigned long s, int c, int g) {
  (void)h; (void)v; (void)d; (void)n; (void)e; (void)s; (void)c; (void)g;
}
int __hipPushCallConfiguration(void* g, void* b, unsigned long m, void* s) {
  (void)g; (void)b; (void)m; (void)s; return 0;
}
int __hipPopCallConfiguration(void* g, void* b, unsigned long* m, void* s) {
  (void)g; (void)b; (void)m; (void)s; return 0;
}
typedef struct { unsigned x, y, z; } dim3;
int hipLaunchKernel(const void* f, dim3 grid, dim3 block, void** args, unsigned long shmem, void* stream) {
  (void)f; (void)grid; (void)block; (void)args; (void)shmem; (void)stream;
  fprintf(stderr, "rocm-spirv: no HIP runtime was linked (stub); kernel not launched\n");
  return 100; /* hipErrorNoDevice */
}
