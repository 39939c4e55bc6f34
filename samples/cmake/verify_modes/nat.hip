#include "../common/saxpy.hip"
