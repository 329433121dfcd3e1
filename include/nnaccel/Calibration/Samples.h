//===- Samples.h - Calibration inputs on disk -------------------*- C++ -*-===//
//
// Where calibration finds its samples, in the layouts nnaccel-run reads:
//
// - DIR/test_data_set_*/input_<i>.pb (the ONNX backend-test layout) or
//   input_<i>.npy: one sample per directory, inputs in argument order;
// - DIR/input_<i>.pb or .npy: DIR is one sample;
// - DIR/*.npy, for a model with one input: one sample per file.
//
// Reading checks what a sample must agree on with the model -- the number
// of inputs and their element types -- and names the file when it does
// not; shapes may differ (calibration then re-imports the model at them).
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CALIBRATION_SAMPLES_H
#define NNACCEL_CALIBRATION_SAMPLES_H

#include "nnaccel/Runtime/Tensor.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::nnaccel::calibration {

struct Sample {
  /// The directory or file the sample is, for messages.
  std::string name;
  /// One file per model input, in order.
  std::vector<std::string> files;
};

/// The samples in `dir` for a model with `numInputs` inputs, in name order
/// (test_data_set_2 before test_data_set_10). Fails, at `loc`, when `dir`
/// cannot be read, holds no sample, or a sample directory lacks an input
/// file or has one too many.
FailureOr<std::vector<Sample>> findSamples(StringRef dir, unsigned numInputs,
                                           Location loc);

/// Reads the tensors of `sample`. Each must have the element type of its
/// entry in `inputs` (named by `inputNames`); errors name the file.
FailureOr<std::vector<::nnaccel::runtime::Tensor>>
readSample(const Sample &sample,
           ArrayRef<::nnaccel::runtime::TensorDesc> inputs,
           ArrayRef<std::string> inputNames, Location loc);

} // namespace mlir::nnaccel::calibration

#endif // NNACCEL_CALIBRATION_SAMPLES_H
