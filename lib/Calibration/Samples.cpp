//===- Samples.cpp - Calibration inputs on disk ---------------------------===//
//
// Tensor files are read with lib/TensorIO, whose messages already name the
// file and what is wrong with it.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Samples.h"

#include "nnaccel/TensorIO/TensorIO.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::nnaccel::calibration;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;
namespace runtime = ::nnaccel::runtime;

namespace {
/// Orders names with a numeric suffix by its value, others by text.
bool isNaturallyBefore(StringRef a, StringRef b) {
  auto split = [](StringRef name) {
    size_t digits = name.size();
    while (digits > 0 && llvm::isDigit(name[digits - 1]))
      --digits;
    return std::make_pair(name.take_front(digits), name.drop_front(digits));
  };
  auto [aStem, aNumber] = split(a);
  auto [bStem, bNumber] = split(b);
  if (aStem != bStem || aNumber.empty() || bNumber.empty())
    return a < b;
  if (aNumber.size() != bNumber.size())
    return aNumber.size() < bNumber.size();
  return aNumber < bNumber;
}

/// The file of input `index` in `dir` (.pb or .npy), or "" if there is none.
std::string findInputFile(StringRef dir, unsigned index) {
  for (StringRef extension : {".pb", ".npy"}) {
    llvm::SmallString<256> file(dir);
    path::append(file, "input_" + std::to_string(index) + extension.str());
    if (fs::exists(file))
      return file.str().str();
  }
  return "";
}

/// The sample that directory `dir` holds: input_0 ... input_<n-1>.
FailureOr<Sample> getDirectorySample(StringRef dir, unsigned numInputs,
                                     Location loc) {
  Sample sample{dir.str(), {}};
  for (unsigned i = 0; i < numInputs; ++i) {
    std::string file = findInputFile(dir, i);
    if (file.empty())
      return emitError(loc)
             << "calibration sample '" << dir << "' has no input_" << i
             << ".pb or input_" << i << ".npy (the model has " << numInputs
             << " input(s))";
    sample.files.push_back(std::move(file));
  }
  if (std::string extra = findInputFile(dir, numInputs); !extra.empty())
    return emitError(loc) << "calibration sample '" << extra
                          << "': the model has only " << numInputs
                          << " input(s)";
  return sample;
}
} // namespace

FailureOr<std::vector<Sample>>
mlir::nnaccel::calibration::findSamples(StringRef dir, unsigned numInputs,
                                        Location loc) {
  if (!fs::is_directory(dir))
    return emitError(loc) << "calibration directory '" << dir
                          << "' does not exist or is not a directory";
  if (!findInputFile(dir, 0).empty()) {
    FailureOr<Sample> sample = getDirectorySample(dir, numInputs, loc);
    if (failed(sample))
      return failure();
    return std::vector<Sample>{std::move(*sample)};
  }

  std::vector<std::string> sampleDirs, npyFiles;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; it != end && !error;
       it.increment(error)) {
    StringRef name = path::filename(it->path());
    if (name.starts_with("test_data_set_") && fs::is_directory(it->path()))
      sampleDirs.push_back(it->path());
    else if (name.ends_with(".npy"))
      npyFiles.push_back(it->path());
  }
  if (error)
    return emitError(loc) << "cannot read calibration directory '" << dir
                          << "': " << error.message();
  auto byName = [](const std::string &a, const std::string &b) {
    return isNaturallyBefore(path::filename(a), path::filename(b));
  };
  llvm::sort(sampleDirs, byName);
  llvm::sort(npyFiles, byName);

  std::vector<Sample> samples;
  for (const std::string &sampleDir : sampleDirs) {
    FailureOr<Sample> sample = getDirectorySample(sampleDir, numInputs, loc);
    if (failed(sample))
      return failure();
    samples.push_back(std::move(*sample));
  }
  if (samples.empty() && !npyFiles.empty()) {
    if (numInputs != 1)
      return emitError(loc)
             << "calibration directory '" << dir << "' holds .npy files, "
             << "which are one sample each only for a model with one input; "
             << "this model has " << numInputs
             << ": put each sample's inputs in test_data_set_*/input_<i>.npy";
    for (const std::string &file : npyFiles)
      samples.push_back(Sample{file, {file}});
  }
  if (samples.empty())
    return emitError(loc) << "calibration directory '" << dir
                          << "' holds no samples (test_data_set_*/"
                             "input_<i>.pb or .npy, or .npy files for a "
                             "model with one input)";
  return samples;
}

FailureOr<std::vector<runtime::Tensor>> mlir::nnaccel::calibration::readSample(
    const Sample &sample, ArrayRef<runtime::TensorDesc> inputs,
    ArrayRef<std::string> inputNames, Location loc) {
  std::vector<runtime::Tensor> tensors;
  for (auto [index, file] : llvm::enumerate(sample.files)) {
    auto tensor = ::nnaccel::tensorio::readTensorFile(file);
    if (!tensor)
      return emitError(loc) << "calibration sample: " << tensor.message();
    const runtime::TensorDesc &desc = tensor->tensor.getDesc();
    if (desc.dtype != inputs[index].dtype)
      return emitError(loc)
             << "calibration sample '" << file << "' holds " << desc.toString()
             << ", but model input " << index << " '" << inputNames[index]
             << "' is " << inputs[index].toString();
    tensors.push_back(std::move(tensor->tensor));
  }
  return tensors;
}
