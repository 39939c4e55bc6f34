// Which variant the build selected (a definition set by the gfx9/gfx11 branches).
#include "unr.h"

#ifndef UNR_VARIANT
#define UNR_VARIANT "generic"
#endif

extern "C" const char* unr_variant() { return UNR_VARIANT; }
