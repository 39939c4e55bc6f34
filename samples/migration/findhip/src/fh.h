// Host API of the findhip sample's kernel library.
#pragma once

extern "C" {
int fh_saxpy(float a, const float* x, float* y, unsigned n, void* stream);
int fh_sumsq(const float* x, float* partial, unsigned n, void* stream);
}
