#include "../../../samples/cmake/common/saxpy.hip"
