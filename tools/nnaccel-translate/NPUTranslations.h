//===- NPUTranslations.h - npu <-> asm/binary translations ------*- C++ -*-===//
//
// Registers nnaccel-translate's npu translations (--npu-to-asm,
// --asm-to-npu, --npu-to-binary, --binary-to-npu) and their options.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TOOLS_NNACCEL_TRANSLATE_NPUTRANSLATIONS_H
#define NNACCEL_TOOLS_NNACCEL_TRANSLATE_NPUTRANSLATIONS_H

namespace mlir::nnaccel {
void registerNPUTranslations();
} // namespace mlir::nnaccel

#endif // NNACCEL_TOOLS_NNACCEL_TRANSLATE_NPUTRANSLATIONS_H
