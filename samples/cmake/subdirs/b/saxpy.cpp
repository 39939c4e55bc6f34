#include "../../common/saxpy.hip"
