#pragma once
#include "rk/device.h"

namespace rk {

struct Add { template <class T> RK_DEVICE T operator()(T a, T b) const { return a + b; } };
struct Mul { template <class T> RK_DEVICE T operator()(T a, T b) const { return a * b; } };
struct Max { template <class T> RK_DEVICE T operator()(T a, T b) const { return a > b ? a : b; } };
struct Min { template <class T> RK_DEVICE T operator()(T a, T b) const { return a < b ? a : b; } };

template <class T> struct Identity;
template <> struct Identity<Add> { template <class T> static RK_DEVICE T value() { return T(0); } };
template <> struct Identity<Mul> { template <class T> static RK_DEVICE T value() { return T(1); } };

}  // namespace rk
