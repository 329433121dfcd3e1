//===- fuzz-emulator.cpp - Fuzz the emulator on verified programs ---------===//
//
// Input: a program binary. Programs the verifier accepts run on the emulator
// (one core of the default target, step budget bounded so that long loops
// end quickly); the emulator must finish or report an error, never crash.
// The verifier's contract is that an accepted program cannot fault, so a
// fault other than the step budget or a deadlock on a missing peer is a
// verifier/emulator disagreement.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "nnaccel/Emulator/Emulator.h"
#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Verifier.h"

using namespace nnaccel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto program = isa::decodeProgram(data, size);
  if (!program)
    return 0;
  const isa::TargetDesc &target = fuzz::defaultTarget();
  if (program->card >= target.cards || program->core >= target.coresPerCard)
    return 0;
  isa::VerifyOptions verifyOptions;
  verifyOptions.maxDispatched = 1 << 14;
  auto diags = isa::verifyProgram(*program, target, verifyOptions);
  if (!isa::succeeded(diags))
    return 0;
  // Past the verifier's dispatch budget it accepts with a warning; only
  // fully verified programs carry the no-fault contract.
  bool fullyVerified = diags.empty();

  emulator::EmulatorOptions options;
  options.threads = 1;
  options.maxSteps = 1 << 14;
  emulator::Emulator emu(target, options);
  if (auto err = emu.loadProgram(*program)) {
    std::fprintf(stderr, "verified program does not load: %s\n%s",
                 err.message().c_str(), isa::printAsm(*program).c_str());
    std::abort();
  }
  // Deadlocks are allowed: the program runs alone, so a recv from the host
  // or another core, or a barrier, may wait for a peer that is not there.
  auto stats = emu.run();
  const std::string &message = stats.message();
  if (!stats && fullyVerified &&
      message.find("step budget") == std::string::npos &&
      message.find("deadlock") == std::string::npos) {
    std::fprintf(stderr, "verified program faults: %s\n%s",
                 stats.message().c_str(), isa::printAsm(*program).c_str());
    std::abort();
  }
  return 0;
}
