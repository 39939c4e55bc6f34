#pragma once
// Feature macros derived from the arch macros, in one header ...
#if defined(__gfx90a__) || defined(__gfx942__)
#define PERARCH_HAS_MFMA 1
#endif
