// A standalone kernel built once per GPU target with -mcpu=<target> into
// unr_scale-<target>.hsaco, loaded at run time by hipModuleLoad. Builtins only.
__kernel void unr_scale(__global float* x, float a, unsigned n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
               __builtin_amdgcn_workitem_id_x();
  if (i < n) x[i] *= a;
}
