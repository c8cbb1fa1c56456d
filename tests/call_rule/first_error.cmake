# Builds one call_rule target (cmake -DBIN=<build dir> -DTARGET=<target>
# -DMESSAGE=<text> -P first_error.cmake) and passes only when the build fails
# and its FIRST error line contains MESSAGE (literally): the message must lead,
# not follow other errors.
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BIN}" --target "${TARGET}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(all "${out}\n${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but should stop with: ${MESSAGE}")
endif()
string(REGEX MATCH "[^\n]*error: [^\n]*" first "${all}")
string(FIND "${first}" "${MESSAGE}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${TARGET}: the first error is\n  ${first}\nexpected it to contain\n  ${MESSAGE}\n"
                      "whole output:\n${all}")
endif()
message(STATUS "${TARGET}: ${first}")
