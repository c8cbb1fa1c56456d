# Resolves UFUNC_BACKEND (cuda | host | auto) and defines the dependencies of the
# ufunc::ufunc INTERFACE target. Included by the project and by the installed
# package config, so a consumer resolves the backend the same way.
include_guard(GLOBAL)

set(UFUNC_BACKEND "auto" CACHE STRING "ufunc backend: cuda, host, or auto (cuda when nvcc and a GPU are found)")
set_property(CACHE UFUNC_BACKEND PROPERTY STRINGS auto cuda host)

set(_ufunc_backend "${UFUNC_BACKEND}")
set(_ufunc_reason "UFUNC_BACKEND=${UFUNC_BACKEND}")
if(_ufunc_backend STREQUAL "auto")
  include(CheckLanguage)
  check_language(CUDA)
  set(_ufunc_backend "host")
  if(NOT CMAKE_CUDA_COMPILER)
    set(_ufunc_reason "UFUNC_BACKEND=auto: no CUDA compiler (nvcc) found")
  else()
    find_program(UFUNC_NVIDIA_SMI nvidia-smi)
    set(_ufunc_reason "UFUNC_BACKEND=auto: nvcc found, but no GPU (nvidia-smi not found)")
    if(UFUNC_NVIDIA_SMI)
      execute_process(COMMAND "${UFUNC_NVIDIA_SMI}" -L OUTPUT_VARIABLE _ufunc_gpus RESULT_VARIABLE _ufunc_rc
                      ERROR_QUIET)
      set(_ufunc_reason "UFUNC_BACKEND=auto: nvcc found, but nvidia-smi -L lists no GPU")
      if(_ufunc_rc EQUAL 0 AND _ufunc_gpus MATCHES "GPU")
        set(_ufunc_backend "cuda")
        set(_ufunc_reason "UFUNC_BACKEND=auto: nvcc and a GPU found")
      endif()
    endif()
  endif()
elseif(NOT _ufunc_backend MATCHES "^(cuda|host)$")
  message(FATAL_ERROR "UFUNC_BACKEND must be cuda, host or auto (got '${UFUNC_BACKEND}')")
endif()
set(UFUNC_RESOLVED_BACKEND "${_ufunc_backend}" CACHE INTERNAL "backend ufunc was configured with")
set(UFUNC_BACKEND_REASON "${_ufunc_reason}" CACHE INTERNAL "why that backend")

if(UFUNC_RESOLVED_BACKEND STREQUAL "cuda")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # Hopper (H100/H200) with its arch-specific instructions (wgmma, setmaxnreg: the
    # 16-bit matmul's fastest kernel); override on the command line (e.g. 80 for
    # Ampere: the tensor_core variant then runs mma.sync).
    set(CMAKE_CUDA_ARCHITECTURES 90a)
  endif()
  enable_language(CUDA)
endif()

# The CUDA Toolkit provides CCCL (Thrust, CUB, libcu++) for both backends and the
# runtime for the CUDA one; OpenMP runs the host backend.
find_package(CUDAToolkit REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_path(UFUNC_CCCL_INCLUDE_DIR thrust/version.h
          HINTS "${CUDAToolkit_INCLUDE_DIRS}/cccl" ${CUDAToolkit_INCLUDE_DIRS}
          DOC "directory holding thrust/, cub/ and cuda/std (CCCL)")
if(NOT UFUNC_CCCL_INCLUDE_DIR)
  message(FATAL_ERROR "ufunc: CCCL headers (thrust/version.h) not found; install the CUDA Toolkit")
endif()

# NCCL (optional, CUDA backend only): sharded arrays over more than one GPU
# combine partial results and broadcast operands with it (README, "Several
# GPUs"). AUTO uses it when found, ON requires it, OFF builds without it (a
# sharded array then spans one GPU; more throws value_error). Searched in the
# CUDA Toolkit's folders, then in the nvidia-nccl-cu13 wheel of python3
# (site-packages/nvidia/nccl/{include,lib}), then the default paths.
# The CUDA runtime a program links (CUDA backend). Static by default, as CMake
# links CUDA targets: a module loaded into a process that already has another
# libcudart.so.13 (PyTorch's, CuPy's) then keeps its own runtime. With Shared, the
# loader gives both the first library of that SONAME it loaded: a newer torch
# imported after a module linked against an older toolkit's libcudart crashes
# (seen with torch 2.11+cu130 beside CUDA 13.0's runtime).
set(UFUNC_CUDA_RUNTIME "Static" CACHE STRING "CUDA runtime for the CUDA backend: Static or Shared")
set_property(CACHE UFUNC_CUDA_RUNTIME PROPERTY STRINGS Static Shared)
if(UFUNC_CUDA_RUNTIME STREQUAL "Shared" AND NOT DEFINED CMAKE_CUDA_RUNTIME_LIBRARY)
  set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)  # nvcc-linked targets alike
endif()

set(UFUNC_WITH_NCCL "AUTO" CACHE STRING "NCCL for sharded arrays over several GPUs: AUTO, ON or OFF")
set_property(CACHE UFUNC_WITH_NCCL PROPERTY STRINGS AUTO ON OFF)
set(UFUNC_NCCL_FOUND FALSE)
if(UFUNC_RESOLVED_BACKEND STREQUAL "cuda" AND NOT UFUNC_WITH_NCCL STREQUAL "OFF")
  set(_ufunc_nccl_hints "")
  foreach(d ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_DIR})
    get_filename_component(_ufunc_root "${d}" DIRECTORY)
    list(APPEND _ufunc_nccl_hints "${_ufunc_root}")
  endforeach()
  if(CUDAToolkit_LIBRARY_ROOT)
    list(APPEND _ufunc_nccl_hints "${CUDAToolkit_LIBRARY_ROOT}")
  endif()
  find_package(Python3 QUIET COMPONENTS Interpreter)
  if(Python3_EXECUTABLE)
    execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))"
                    OUTPUT_VARIABLE _ufunc_nccl_py OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _ufunc_py_rc ERROR_QUIET)
    if(_ufunc_py_rc EQUAL 0 AND _ufunc_nccl_py)
      list(APPEND _ufunc_nccl_hints "${_ufunc_nccl_py}")
    endif()
  endif()
  find_path(UFUNC_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ${_ufunc_nccl_hints}
            PATH_SUFFIXES include DOC "directory holding nccl.h")
  find_library(UFUNC_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${CUDAToolkit_LIBRARY_DIR} ${_ufunc_nccl_hints}
               PATH_SUFFIXES lib64 lib DOC "the NCCL library")
  if(UFUNC_NCCL_INCLUDE_DIR AND UFUNC_NCCL_LIBRARY)
    set(UFUNC_NCCL_FOUND TRUE)
  elseif(UFUNC_WITH_NCCL STREQUAL "ON")
    message(FATAL_ERROR "ufunc: UFUNC_WITH_NCCL=ON but NCCL was not found (nccl.h: ${UFUNC_NCCL_INCLUDE_DIR}, "
                        "library: ${UFUNC_NCCL_LIBRARY}); install NCCL (e.g. pip install nvidia-nccl-cu13) or "
                        "set UFUNC_NCCL_INCLUDE_DIR and UFUNC_NCCL_LIBRARY")
  endif()
endif()
if(UFUNC_RESOLVED_BACKEND STREQUAL "cuda")
  if(UFUNC_NCCL_FOUND)
    message(STATUS "ufunc: NCCL ${UFUNC_NCCL_LIBRARY} (sharded arrays over several GPUs)")
  else()
    message(STATUS "ufunc: no NCCL (UFUNC_WITH_NCCL=${UFUNC_WITH_NCCL}): sharded arrays span one GPU")
  endif()
endif()

# Adds the backend's usage requirements to an INTERFACE target. With BUILD_ONLY
# they apply to the build tree only (the installed config adds them itself, so
# the exported target carries no machine-specific paths).
function(ufunc_configure_target tgt)
  cmake_parse_arguments(arg "BUILD_ONLY" "" "" ${ARGN})
  set(incs "$<$<COMPILE_LANGUAGE:CXX>:${UFUNC_CCCL_INCLUDE_DIR}>")  # nvcc finds CCCL itself
  set(libs OpenMP::OpenMP_CXX ${CMAKE_DL_LIBS})  # dl: NVTX (detail/trace.hpp) finds a profiler with dlopen
  set(opts "$<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda>" "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp>")
  set(defs "")
  if(UFUNC_RESOLVED_BACKEND STREQUAL "cuda")
    list(APPEND defs UFUNC_BACKEND_CUDA)
    if(UFUNC_CUDA_RUNTIME STREQUAL "Shared")
      list(APPEND libs CUDA::cudart)
    else()
      list(APPEND libs CUDA::cudart_static)
    endif()
    if(UFUNC_NCCL_FOUND)
      list(APPEND defs UFUNC_HAVE_NCCL)
      list(APPEND incs "${UFUNC_NCCL_INCLUDE_DIR}")
      list(APPEND libs "${UFUNC_NCCL_LIBRARY}")
    endif()
  else()
    list(APPEND incs ${CUDAToolkit_INCLUDE_DIRS})
  endif()
  foreach(kind incs libs opts defs)
    if(arg_BUILD_ONLY)
      list(TRANSFORM ${kind} REPLACE "^(.+)$" "$<BUILD_INTERFACE:\\1>")
    endif()
  endforeach()
  target_compile_features(${tgt} INTERFACE cxx_std_17)
  target_include_directories(${tgt} SYSTEM INTERFACE ${incs})
  target_link_libraries(${tgt} INTERFACE ${libs})
  target_compile_options(${tgt} INTERFACE ${opts})
  target_compile_definitions(${tgt} INTERFACE ${defs})
endfunction()

# Compiles the given sources with the backend's compiler: nvcc for cuda (the same
# .cpp files), the host C++ compiler otherwise.
function(ufunc_backend_sources)
  if(UFUNC_RESOLVED_BACKEND STREQUAL "cuda")
    set_source_files_properties(${ARGN} DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()
