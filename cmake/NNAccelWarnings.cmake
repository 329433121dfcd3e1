# NNAccelWarnings.cmake - one place for the project's warning flags.
#
# nnaccel_set_warnings(<target>) applies them to targets the project owns, so
# that third-party and generated code is not held to them.
function(nnaccel_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(NNACCEL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
