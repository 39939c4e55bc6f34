// Host-side launchers of the sample kernels; each returns the hipLaunchKernel status.
#pragma once

int launch_saxpy(float a, const float* x, float* y, int n);
int launch_scale(float* x, float factor, int n);
int launch_reduce_sum(const float* x, float* out, int n);
