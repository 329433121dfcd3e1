//===- TensorIO.h - Tensor files of the tools -------------------*- C++ -*-===//
//
// Reading and writing the tensor files a model runner meets: ONNX
// TensorProto files (`input_0.pb` / `output_0.pb` of the ONNX backend-test
// layout `test_data_set_N/`) and NumPy `.npy` arrays. Everything returns a
// runtime::Tensor or an error naming the file and the problem; malformed,
// truncated or unsupported files never crash.
//
// This library (NNAccelTensorIO) links libonnx's protobuf classes and is
// used by tools (nnaccel-run's inputs and references, nnaccel-compile's
// calibration samples) and tests only -- NNAccelRuntime itself never
// depends on protobuf.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TENSORIO_TENSORIO_H
#define NNACCEL_TENSORIO_TENSORIO_H

#include "nnaccel/Runtime/Model.h"
#include "nnaccel/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel {
namespace tensorio {

using runtime::Expected;
using runtime::Tensor;
using Status = package::Status;

/// A tensor with the name its file gave it (TensorProto.name; empty for
/// .npy files and unnamed protos).
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

//===--- ONNX TensorProto ----------------------------------------------===//

/// Decodes a serialized onnx.TensorProto. Supports the data types float,
/// double, float16, bfloat16, int8/16/32/64, uint8 and bool, stored either
/// in raw_data (little-endian) or in the typed fields (float_data,
/// double_data, int32_data, int64_data). `source` prefixes messages.
Expected<NamedTensor> parseTensorProto(const void *data, size_t size,
                                       const std::string &source);
Expected<NamedTensor> readTensorProto(const std::string &path);
/// Encodes `tensor` as a TensorProto with raw_data.
Expected<std::vector<uint8_t>> serializeTensorProto(const Tensor &tensor,
                                                    const std::string &name);
Status writeTensorProto(const std::string &path, const Tensor &tensor,
                        const std::string &name);

//===--- NumPy .npy -----------------------------------------------------===//

/// Decodes a .npy file (format versions 1.0, 2.0, 3.0; C order only).
/// dtypes: '<f4' '<f8' '<f2' '<i8' '<i4' '<i2' '|i1' '|u1' '|b1' (and the
/// '=' / '|' spellings of the same little-endian types).
Expected<Tensor> parseNpy(const void *data, size_t size,
                          const std::string &source);
Expected<Tensor> readNpy(const std::string &path);
/// Encodes `tensor` as .npy 1.0. bf16 has no NumPy dtype and is written
/// as '<f4' (exactly, every bf16 is an f32).
Expected<std::vector<uint8_t>> serializeNpy(const Tensor &tensor);
Status writeNpy(const std::string &path, const Tensor &tensor);

//===--- Files ----------------------------------------------------------===//

/// Reads a tensor file, by extension: ".npy" as NumPy, anything else
/// (".pb") as a TensorProto.
Expected<NamedTensor> readTensorFile(const std::string &path);
/// The whole file; errors name the path.
Expected<std::vector<uint8_t>> readFileBytes(const std::string &path);
Status writeFileBytes(const std::string &path,
                      const std::vector<uint8_t> &bytes);

} // namespace tensorio
} // namespace nnaccel

#endif // NNACCEL_TENSORIO_TENSORIO_H
