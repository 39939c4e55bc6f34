// The shadow copies must keep the interfaces' other usage requirements.
#ifndef MYDEVICE
#error "mydevice's compile definitions were lost"
#endif
#include "../common/saxpy.hip"
