//===- FuzzSupport.h - Shared helpers of the libFuzzer targets --*- C++ -*-===//
//
// The fuzz targets in this directory each exercise one reader of untrusted
// bytes. They share the target description the ISA targets verify against
// (targets/default.json, read once per process) and a few size limits that
// keep every iteration fast enough for libFuzzer.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_FUZZ_FUZZSUPPORT_H
#define NNACCEL_FUZZ_FUZZSUPPORT_H

#include "nnaccel/ISA/Target.h"

#include <cstdio>
#include <cstdlib>

namespace nnaccel::fuzz {

/// targets/default.json; NNACCEL_TARGETS_DIR is set by fuzz/CMakeLists.txt.
inline const isa::TargetDesc &defaultTarget() {
  static const isa::TargetDesc target = [] {
    auto parsed =
        isa::loadTarget(std::string(NNACCEL_TARGETS_DIR) + "/default.json");
    if (!parsed) {
      std::fprintf(stderr, "fuzz: %s\n", parsed.message().c_str());
      std::abort();
    }
    return *parsed;
  }();
  return target;
}

} // namespace nnaccel::fuzz

#endif // NNACCEL_FUZZ_FUZZSUPPORT_H
