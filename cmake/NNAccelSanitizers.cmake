# NNAccelSanitizers.cmake - the instrumented build behind `make check-sanitize`
# and `make fuzz` (docs/robustness.md).
#
# NNACCEL_SANITIZE compiles and links every nnaccel target with AddressSanitizer
# and UndefinedBehaviorSanitizer; NNACCEL_FUZZ additionally adds libFuzzer's
# coverage instrumentation (-fsanitize=fuzzer-no-link) so that one build serves
# both the sanitizer test suite and the fuzz targets in fuzz/. The LLVM/MLIR
# libraries come uninstrumented from Debian; that is fine for ASan and UBSan.
if(NNACCEL_FUZZ AND NOT NNACCEL_SANITIZE)
  message(FATAL_ERROR "NNACCEL_FUZZ=ON needs NNACCEL_SANITIZE=ON")
endif()
if(NOT NNACCEL_SANITIZE)
  return()
endif()
if(NNACCEL_FUZZ AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "NNACCEL_FUZZ=ON needs clang (configure with clang++-19)")
endif()

# -fno-sanitize=vptr: the vptr check needs RTTI on both sides of a cast, and
# the Debian LLVM/MLIR libraries (and the targets add_mlir_* builds) are
# compiled with -fno-rtti, so the check cannot tell a real mismatch from a
# class whose type_info it cannot see.
# -fno-sanitize-recover=all: a UBSan report fails the test that produced it.
set(NNACCEL_SANITIZER_FLAGS
    -fsanitize=address,undefined -fno-sanitize=vptr
    -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_compile_options(${NNACCEL_SANITIZER_FLAGS})
add_link_options(-fsanitize=address,undefined)
if(NNACCEL_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
