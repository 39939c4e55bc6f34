// Host API of the hipla library: each call launches one kernel on the given stream.
#pragma once

extern "C" {
int hipla_saxpy(float a, const float* x, float* y, unsigned n, void* stream);
int hipla_sum(const float* in, float* partial, unsigned n, void* stream);
const char* hipla_build_info();
}
