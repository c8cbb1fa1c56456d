// The precompiled ufunc.hpp every call_rule case reuses (tests/CMakeLists.txt):
// this file only gives the header's target a source.
