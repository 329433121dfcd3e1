//===- TensorIO.cpp - Tensor files of the tools ---------------------------===//
//
// TensorProto decoding goes through libonnx's generated protobuf class, then
// checks what protobuf cannot: that the element count implied by `dims`
// matches the data actually present (which is how a truncated file shows
// up -- protobuf happily parses a message cut at a field boundary), that
// the type is one the runtime has, and that the data is not external.
// The .npy header is a Python dict literal; a small tolerant scanner reads
// the three keys rather than pulling in a Python-literal parser.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/TensorIO/TensorIO.h"

#include "nnaccel/Numerics/Float16.h"

#include <onnx/onnx_pb.h>

#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>

namespace nnaccel {
namespace tensorio {

using runtime::DType;
using runtime::TensorDesc;

namespace {

Status fail(std::string message) { return Status::error(std::move(message)); }

//===----------------------------------------------------------------------===//
// ONNX
//===----------------------------------------------------------------------===//

struct OnnxType {
  int onnx;
  DType dtype;
};
// onnx.TensorProto.DataType values.
constexpr OnnxType OnnxTypes[] = {
    {1, DType::F32},  {2, DType::U8},   {3, DType::I8},   {4, DType::U16},
    {5, DType::I16},  {6, DType::I32},  {7, DType::I64},  {9, DType::I1},
    {10, DType::F16}, {11, DType::F64}, {12, DType::U32}, {16, DType::BF16},
};

const char *onnxTypeName(int type) {
  switch (type) {
  case 0:
    return "UNDEFINED";
  case 8:
    return "STRING";
  case 13:
    return "UINT64";
  case 14:
    return "COMPLEX64";
  case 15:
    return "COMPLEX128";
  default:
    return "unknown";
  }
}

template <typename Field, typename Convert>
Status fillTyped(const Field &field, Tensor &t, const std::string &what,
                 Convert convert) {
  if (static_cast<int64_t>(field.size()) != t.getNumElements())
    return fail(fmt::format("{} holds {} element(s), the dims need {}", what,
                            field.size(), t.getNumElements()));
  for (int i = 0; i < field.size(); ++i)
    convert(i, field.Get(i));
  return Status::success();
}

/// The typed TensorProto field that holds elements of `dtype` when there
/// is no raw_data (name null for a type read from no typed field).
struct TypedField {
  const char *name = nullptr;
  int64_t size = 0;
};
TypedField getTypedField(const onnx::TensorProto &proto, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return {"float_data", proto.float_data_size()};
  case DType::F64:
    return {"double_data", proto.double_data_size()};
  case DType::I64:
    return {"int64_data", proto.int64_data_size()};
  case DType::U32:
    return {"uint64_data", proto.uint64_data_size()};
  case DType::I32:
  case DType::U16:
  case DType::I16:
  case DType::I8:
  case DType::U8:
  case DType::I1:
  case DType::F16:
  case DType::BF16:
    return {"int32_data", proto.int32_data_size()};
  default:
    return {};
  }
}

template <typename T> void store(Tensor &t, int64_t i, T v) {
  std::memcpy(static_cast<uint8_t *>(t.mutableData()) + i * sizeof(T), &v,
              sizeof(T));
}

//===----------------------------------------------------------------------===//
// NumPy
//===----------------------------------------------------------------------===//

struct NpyType {
  const char *descr; // without the byte-order character
  DType dtype;
};
constexpr NpyType NpyTypes[] = {
    {"f4", DType::F32}, {"f8", DType::F64}, {"f2", DType::F16},
    {"i8", DType::I64}, {"i4", DType::I32}, {"i2", DType::I16},
    {"i1", DType::I8},  {"u1", DType::U8},  {"b1", DType::I1},
    {"u2", DType::U16}, {"u4", DType::U32},
};

/// The value text of `'key':` in the header dict, up to the next top-level
/// comma or closing brace; empty if absent.
std::string npyField(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    at = header.find("\"" + key + "\"");
  if (at == std::string::npos)
    return {};
  size_t colon = header.find(':', at + key.size() + 2);
  if (colon == std::string::npos)
    return {};
  size_t begin = colon + 1, end = begin;
  int depth = 0;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  std::string value = header.substr(begin, end - begin);
  size_t first = value.find_first_not_of(" \t\n");
  size_t last = value.find_last_not_of(" \t\n");
  return first == std::string::npos ? std::string()
                                    : value.substr(first, last - first + 1);
}

Status parseNpyShape(const std::string &text, std::vector<int64_t> &shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return fail("shape is not a tuple: " + text);
  std::string inner = text.substr(1, text.size() - 2);
  size_t i = 0;
  while (i < inner.size()) {
    while (
        i < inner.size() &&
        (std::isspace(static_cast<unsigned char>(inner[i])) || inner[i] == ','))
      ++i;
    if (i == inner.size())
      break;
    size_t j = i;
    while (j < inner.size() &&
           std::isdigit(static_cast<unsigned char>(inner[j])))
      ++j;
    // Tolerate Python 2's long suffix.
    size_t digits = j;
    if (j < inner.size() && (inner[j] == 'L' || inner[j] == 'l'))
      ++j;
    if (digits == i || digits - i > 18)
      return fail("bad dimension in shape " + text);
    shape.push_back(std::stoll(inner.substr(i, digits - i)));
    i = j;
  }
  return Status::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

Expected<NamedTensor> parseTensorProto(const void *data, size_t size,
                                       const std::string &source) {
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    return fail(source + ": file too large for a TensorProto");
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size)))
    return fail(source + ": not a valid ONNX TensorProto (malformed or "
                         "truncated protobuf)");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail(source + ": tensors with external data are not supported");
  if (proto.has_segment())
    return fail(source + ": segmented tensors are not supported");

  int type = proto.data_type();
  const OnnxType *found = nullptr;
  for (const OnnxType &t : OnnxTypes)
    if (t.onnx == type)
      found = &t;
  if (!found)
    return fail(fmt::format("{}: unsupported TensorProto data_type {} ({})",
                            source, type, onnxTypeName(type)));
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  TensorDesc desc(found->dtype, shape);
  if (runtime::Status s = desc.validate(); !s.ok())
    return fail(source + ": bad dims: " + s.message());

  int64_t n = desc.getNumElements();
  size_t bytes = desc.getByteSize();
  std::string what = source + ": ";
  // Every element comes from the message, so dims cannot ask for more than
  // the file holds: checked before allocating, so that dims claiming 2^60
  // elements are an error rather than an allocation.
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytes)
      return fail(fmt::format("{}raw_data has {} bytes, {} needs {}", what,
                              proto.raw_data().size(), desc.toString(), bytes));
  } else if (TypedField field = getTypedField(proto, desc.dtype);
             field.name && field.size != n) {
    return fail(fmt::format("{}{} holds {} element(s), the dims need {}", what,
                            field.name, field.size, n));
  }

  Tensor t = Tensor::allocate(desc);
  if (t.isNull())
    return fail(source + ": cannot allocate " + desc.toString());
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (bytes)
      std::memcpy(t.mutableData(), raw.data(), bytes);
    if (desc.dtype == DType::I1)
      for (int64_t i = 0; i < n; ++i)
        if (t.as<uint8_t>()[i] > 1)
          return fail(fmt::format("{}bool element {} is {}, not 0 or 1", what,
                                  i, t.as<uint8_t>()[i]));
    return NamedTensor{proto.name(), std::move(t)};
  }

  Status s;
  switch (desc.dtype) {
  case DType::F32:
    s = fillTyped(proto.float_data(), t, what + "float_data",
                  [&](int i, float v) { store(t, i, v); });
    break;
  case DType::F64:
    s = fillTyped(proto.double_data(), t, what + "double_data",
                  [&](int i, double v) { store(t, i, v); });
    break;
  case DType::I64:
    s = fillTyped(proto.int64_data(), t, what + "int64_data",
                  [&](int i, int64_t v) { store(t, i, v); });
    break;
  case DType::I32:
    s = fillTyped(proto.int32_data(), t, what + "int32_data",
                  [&](int i, int32_t v) { store(t, i, v); });
    break;
  case DType::I16:
    s = fillTyped(
        proto.int32_data(), t, what + "int32_data",
        [&](int i, int32_t v) { store(t, i, static_cast<int16_t>(v)); });
    break;
  case DType::I8:
    s = fillTyped(
        proto.int32_data(), t, what + "int32_data",
        [&](int i, int32_t v) { store(t, i, static_cast<int8_t>(v)); });
    break;
  case DType::U8:
    s = fillTyped(
        proto.int32_data(), t, what + "int32_data",
        [&](int i, int32_t v) { store(t, i, static_cast<uint8_t>(v)); });
    break;
  case DType::U16:
    s = fillTyped(
        proto.int32_data(), t, what + "int32_data",
        [&](int i, int32_t v) { store(t, i, static_cast<uint16_t>(v)); });
    break;
  case DType::U32:
    s = fillTyped(
        proto.uint64_data(), t, what + "uint64_data",
        [&](int i, uint64_t v) { store(t, i, static_cast<uint32_t>(v)); });
    break;
  case DType::I1:
    s = fillTyped(proto.int32_data(), t, what + "int32_data",
                  [&](int i, int32_t v) { store(t, i, uint8_t(v != 0)); });
    break;
  case DType::F16:
  case DType::BF16:
    // ONNX stores 16-bit floats as their bit patterns in int32_data.
    s = fillTyped(
        proto.int32_data(), t, what + "int32_data",
        [&](int i, int32_t v) { store(t, i, static_cast<uint16_t>(v)); });
    break;
  default:
    // Only the types of OnnxTypes reach here.
    return fail(fmt::format("{}: unsupported element type {}", source,
                            desc.toString()));
  }
  if (!s.ok())
    return s;
  return NamedTensor{proto.name(), std::move(t)};
}

Expected<std::vector<uint8_t>> serializeTensorProto(const Tensor &tensor,
                                                    const std::string &name) {
  if (tensor.isNull())
    return fail("cannot serialize a null tensor");
  onnx::TensorProto proto;
  proto.set_name(name);
  int type = -1;
  for (const OnnxType &t : OnnxTypes)
    if (t.dtype == tensor.getDType())
      type = t.onnx;
  if (type < 0)
    return fail(std::string("no ONNX type for ") +
                runtime::getDTypeName(tensor.getDType()));
  proto.set_data_type(type);
  for (int64_t d : tensor.getShape())
    proto.add_dims(d);
  proto.set_raw_data(tensor.data(), tensor.getByteSize());
  std::string out;
  if (!proto.SerializeToString(&out))
    return fail("cannot serialize TensorProto '" + name + "'");
  return std::vector<uint8_t>(out.begin(), out.end());
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

Expected<Tensor> parseNpy(const void *data, size_t size,
                          const std::string &source) {
  const auto *p = static_cast<const uint8_t *>(data);
  static const uint8_t Magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(p, Magic, 6) != 0)
    return fail(source + ": not a .npy file (bad magic)");
  unsigned major = p[6];
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = p[8] | (size_t(p[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return fail(source + ": truncated .npy header");
    headerLen = p[8] | (size_t(p[9]) << 8) | (size_t(p[10]) << 16) |
                (size_t(p[11]) << 24);
    offset = 12;
  } else {
    return fail(
        fmt::format("{}: unsupported .npy version {}.{}", source, major, p[7]));
  }
  if (headerLen > size - offset)
    return fail(source + ": truncated .npy header");
  std::string header(reinterpret_cast<const char *>(p + offset), headerLen);
  offset += headerLen;

  std::string descr = npyField(header, "descr");
  std::string fortran = npyField(header, "fortran_order");
  std::string shapeText = npyField(header, "shape");
  if (descr.size() < 2 || shapeText.empty() || fortran.empty())
    return fail(source +
                ": .npy header lacks descr, fortran_order or "
                "shape: " +
                header);
  if (fortran != "False")
    return fail(source + ": Fortran-order .npy arrays are not supported");
  descr = descr.substr(1, descr.size() - 2); // strip the quotes
  const NpyType *found = nullptr;
  if (descr.size() == 3) {
    char order = descr[0];
    bool oneByte = descr[2] == '1';
    bool littleEndian =
        order == '<' || (order == '|' && oneByte) || (order == '=');
    for (const NpyType &t : NpyTypes)
      if (littleEndian && descr.compare(1, 2, t.descr) == 0)
        found = &t;
  }
  if (!found)
    return fail(source + ": unsupported .npy dtype '" + descr + "'");
  std::vector<int64_t> shape;
  if (Status s = parseNpyShape(shapeText, shape); !s.ok())
    return fail(source + ": " + s.message());
  TensorDesc desc(found->dtype, shape);
  if (runtime::Status s = desc.validate(); !s.ok())
    return fail(source + ": bad shape: " + s.message());
  size_t bytes = desc.getByteSize();
  if (size - offset != bytes)
    return fail(fmt::format("{}: .npy data has {} bytes, {} needs {}{}", source,
                            size - offset, desc.toString(), bytes,
                            size - offset < bytes ? " (truncated file)" : ""));
  Tensor t = Tensor::copyOf(desc, p + offset);
  if (t.isNull())
    return fail(source + ": cannot allocate " + desc.toString());
  return t;
}

Expected<std::vector<uint8_t>> serializeNpy(const Tensor &tensor) {
  if (tensor.isNull())
    return fail("cannot serialize a null tensor");
  Tensor t = tensor;
  if (t.getDType() == DType::BF16) {
    Tensor f = Tensor::allocate(TensorDesc(DType::F32, t.getShape()));
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      f.mutableAs<float>()[i] = numerics::bf16ToFp32(t.as<uint16_t>()[i]);
    t = f;
  }
  const char *descr = nullptr;
  for (const NpyType &n : NpyTypes)
    if (n.dtype == t.getDType())
      descr = n.descr;
  if (!descr)
    return fail(std::string("no .npy dtype for ") +
                runtime::getDTypeName(t.getDType()));
  bool oneByte = descr[1] == '1';
  std::string shape;
  for (int64_t d : t.getShape())
    shape += std::to_string(d) + ", ";
  if (t.getRank() > 1)
    shape.resize(shape.size() - 2);
  else if (t.getRank() == 1)
    shape.resize(shape.size() - 1); // "(n,)"
  std::string header = fmt::format(
      "{{'descr': '{}{}', 'fortran_order': False, 'shape': ({}), }}",
      oneByte ? '|' : '<', descr, shape);
  // Pad with spaces so the data starts on a 64-byte boundary, as NumPy does.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xFFFF)
    return fail("array rank too large for a .npy 1.0 header");
  std::vector<uint8_t> out = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              static_cast<uint8_t>(header.size() & 0xFF),
                              static_cast<uint8_t>(header.size() >> 8)};
  out.insert(out.end(), header.begin(), header.end());
  const auto *bytes = static_cast<const uint8_t *>(t.data());
  out.insert(out.end(), bytes, bytes + t.getByteSize());
  return out;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

Expected<std::vector<uint8_t>> readFileBytes(const std::string &path) {
  // An ifstream opens a directory and throws on the first read: reject
  // anything but a regular file up front.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fail(path + ": is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(path + ": cannot open file");
  try {
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (in.bad())
      return fail(path + ": read error");
    return bytes;
  } catch (const std::exception &e) {
    return fail(path + ": read error: " + e.what());
  }
}

Status writeFileBytes(const std::string &path,
                      const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return fail(path + ": cannot create file");
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    return fail(path + ": write error");
  return Status::success();
}

Expected<NamedTensor> readTensorProto(const std::string &path) {
  Expected<std::vector<uint8_t>> bytes = readFileBytes(path);
  if (!bytes)
    return bytes.status();
  return parseTensorProto(bytes->data(), bytes->size(), path);
}

Expected<Tensor> readNpy(const std::string &path) {
  Expected<std::vector<uint8_t>> bytes = readFileBytes(path);
  if (!bytes)
    return bytes.status();
  return parseNpy(bytes->data(), bytes->size(), path);
}

Expected<NamedTensor> readTensorFile(const std::string &path) {
  bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  if (!npy)
    return readTensorProto(path);
  Expected<Tensor> t = readNpy(path);
  if (!t)
    return t.status();
  return NamedTensor{std::string(), std::move(t.value())};
}

Status writeNpy(const std::string &path, const Tensor &tensor) {
  Expected<std::vector<uint8_t>> bytes = serializeNpy(tensor);
  if (!bytes)
    return bytes.status().withContext(path);
  return writeFileBytes(path, *bytes);
}

Status writeTensorProto(const std::string &path, const Tensor &tensor,
                        const std::string &name) {
  Expected<std::vector<uint8_t>> bytes = serializeTensorProto(tensor, name);
  if (!bytes)
    return bytes.status().withContext(path);
  return writeFileBytes(path, *bytes);
}

} // namespace tensorio
} // namespace nnaccel
