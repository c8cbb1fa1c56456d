// Umbrella header: everything a user of ufunc needs. CMake target ufunc::ufunc.
#pragma once

#include "config.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "array_view.hpp"
#include "array.hpp"
#include "device.hpp"
#include "vectorize.hpp"
#include "matmul.hpp"
#include "transpose.hpp"
