// Umbrella header: everything a user of ufunc needs. CMake target ufunc::ufunc.
#pragma once

// The functions users lift are math (expf, sqrtf, fabsf ...): <cmath> comes with
// the umbrella header, as it did when Thrust's OMP headers brought it in.
#include <cmath>

#include "config.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "event.hpp"
#include "array_view.hpp"
#include "array.hpp"
#include "pinned_array.hpp"
#include "device.hpp"
#include "vectorize.hpp"
#include "lazy.hpp"
#include "reduce.hpp"
#include "ops.hpp"
#include "axis.hpp"
#include "vec.hpp"
#include "parallel_for.hpp"
#include "atomic.hpp"
#include "matmul.hpp"
#include "transpose.hpp"
#include "sharded_array.hpp"
#include "sharded.hpp"
#include "math.hpp"
#include "memory_resource.hpp"
#include "random.hpp"
#include "gufunc.hpp"
#include "cumulative.hpp"
#include "search.hpp"
#include "sort.hpp"
#include "select_k.hpp"
