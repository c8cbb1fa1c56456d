// Umbrella header: everything a user of ufunc needs. CMake target ufunc::ufunc.
#pragma once

#include "config.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "event.hpp"
#include "array_view.hpp"
#include "array.hpp"
#include "device.hpp"
#include "vectorize.hpp"
#include "reduce.hpp"
#include "ops.hpp"
#include "axis.hpp"
#include "parallel_for.hpp"
#include "atomic.hpp"
#include "matmul.hpp"
#include "transpose.hpp"
