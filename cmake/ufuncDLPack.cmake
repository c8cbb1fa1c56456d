# DLPack's header (dlpack/dlpack.h) for the DLPack half of ufunc/interop.hpp, which
# the tests build against: .deps/dlpack (scripts/install-deps.sh unpacks it there
# from the apache-tvm-ffi wheel, DLPack 1.3), else wherever find_path finds one.
# The library target and the installed package do not need it: a program that
# includes ufunc/interop.hpp with dlpack/dlpack.h on its include path gets the
# DLPack functions, one without gets the mdspan ones.
set(_ufunc_dlpack_doc "directory holding dlpack/dlpack.h (ufunc/interop.hpp's DLPack tests)")
if(NOT UFUNC_DLPACK_INCLUDE_DIR AND EXISTS "${PROJECT_SOURCE_DIR}/.deps/dlpack/dlpack/dlpack.h")
  # FORCE: replaces a NOTFOUND cached before install-deps.sh fetched the header
  set(UFUNC_DLPACK_INCLUDE_DIR "${PROJECT_SOURCE_DIR}/.deps/dlpack" CACHE PATH "${_ufunc_dlpack_doc}" FORCE)
endif()
find_path(UFUNC_DLPACK_INCLUDE_DIR dlpack/dlpack.h DOC "${_ufunc_dlpack_doc}")
if(UFUNC_DLPACK_INCLUDE_DIR AND NOT EXISTS "${UFUNC_DLPACK_INCLUDE_DIR}/dlpack/dlpack.h")
  message(WARNING "ufunc: UFUNC_DLPACK_INCLUDE_DIR=${UFUNC_DLPACK_INCLUDE_DIR} holds no dlpack/dlpack.h")
  set(UFUNC_DLPACK_FOUND FALSE)
elseif(UFUNC_DLPACK_INCLUDE_DIR)
  set(UFUNC_DLPACK_FOUND TRUE)
  file(STRINGS "${UFUNC_DLPACK_INCLUDE_DIR}/dlpack/dlpack.h" _v REGEX "#define DLPACK_(MAJOR|MINOR)_VERSION")
  string(REGEX REPLACE "[^0-9;]" "" _v "${_v}")
  string(REPLACE ";" "." _v "${_v}")
  message(STATUS "ufunc: dlpack/dlpack.h ${_v} in ${UFUNC_DLPACK_INCLUDE_DIR}: the DLPack tests are built")
else()
  set(UFUNC_DLPACK_FOUND FALSE)
  message(STATUS "ufunc: no dlpack/dlpack.h (scripts/install-deps.sh fetches one; or set UFUNC_DLPACK_INCLUDE_DIR): "
                 "the DLPack tests are left out")
endif()
