// Host API of the hipdev library (rocPRIM-style .cpp sources compiled as HIP).
#pragma once

extern "C" {
int hipdev_saxpy(float a, const float* x, float* y, unsigned n, void* stream);
int hipdev_scale(double a, double* x, unsigned n, void* stream);
}
