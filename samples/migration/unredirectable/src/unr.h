// Host API of the unredirectable sample's library.
#pragma once

extern "C" {
int unr_axpy(float a, const float* x, float* y, unsigned n, void* stream);
int unr_block_max(const float* x, float* partial, unsigned n, void* stream);
const char* unr_variant();
}
