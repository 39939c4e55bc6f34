// Host API of the raw_flags libraries.
#pragma once

extern "C" {
int raw_saxpy(float a, const float* x, float* y, unsigned n, void* stream);
int raw_dot_partial(const float* x, const float* y, float* partial, unsigned n, void* stream);
}
