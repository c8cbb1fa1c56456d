// What UFUNC_CUDA_BACKEND("cuda/x.hpp") (config.hpp) includes in a build without
// the CUDA backend: nothing.
#pragma once
