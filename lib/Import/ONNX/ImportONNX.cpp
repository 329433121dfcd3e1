//===- ImportONNX.cpp - ONNX model to accel IR ----------------------------===//
//
// Parses a model (binary or text), checks it, fixes input shapes, and
// converts the graph node by node through the converter table. Every op
// gets the ONNX node name as its location. All unsupported ops are reported
// together, before anything is converted.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Import/ONNX/ImportONNX.h"
#include "nnaccel/Transforms/Passes.h"

#include "ImporterContext.h"

#include "Accel/AccelDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/defs/parser.h>
#include <onnx/defs/schema.h>

#include <climits>
#include <fstream>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;

static constexpr int64_t kMinOpset = 1;
static constexpr int64_t kMaxOpset = 18;

static const ConverterTable &getConverterTable() {
  static const ConverterTable table = [] {
    ConverterTable t;
    registerElementwiseConverters(t);
    registerNNConverters(t);
    registerTensorConverters(t);
    registerRecurrentConverters(t);
    registerDecomposedConverters(t);
    registerQuantConverters(t);
    registerIndexingConverters(t);
    registerSpatialConverters(t);
    registerLossConverters(t);
    return t;
  }();
  return table;
}

/// The converter implementing `node` at `opset`, or null.
static const Converter *findConverter(const onnx::NodeProto &node,
                                      int64_t opset) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return nullptr;
  auto it = getConverterTable().find(node.op_type());
  if (it == getConverterTable().end())
    return nullptr;
  const Converter *best = nullptr;
  for (const Converter &converter : it->second)
    if (converter.minOpset <= opset)
      best = &converter;
  return best;
}

LogicalResult
mlir::nnaccel::parseInputShapes(StringRef text,
                                llvm::StringMap<SmallVector<int64_t>> &shapes,
                                std::string &error) {
  SmallVector<StringRef> entries;
  text.split(entries, ',', -1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    auto [name, dims] = entry.rsplit(':');
    if (name.empty() || dims.empty() || dims == entry) {
      error = ("expected name:DIMxDIM..., got '" + entry + "'").str();
      return failure();
    }
    SmallVector<int64_t> shape;
    SmallVector<StringRef> parts;
    if (dims != "scalar")
      dims.split(parts, 'x');
    for (StringRef part : parts) {
      int64_t dim;
      if (part.getAsInteger(10, dim) || dim < 0) {
        error = ("bad dimension '" + part + "' in '" + entry + "'").str();
        return failure();
      }
      shape.push_back(dim);
    }
    shapes[name] = shape;
  }
  return success();
}

LogicalResult mlir::nnaccel::parseBoundInputs(
    StringRef text, llvm::StringMap<std::string> &bound, std::string &error) {
  SmallVector<StringRef> entries;
  text.split(entries, ',', -1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    auto [name, path] = entry.split('=');
    if (name.empty() || path.empty()) {
      error = ("expected name=file.pb, got '" + entry + "'").str();
      return failure();
    }
    bound[name] = path.str();
  }
  return success();
}

namespace {
/// Imports one ModelProto into a module.
class ModelImporter {
public:
  ModelImporter(MLIRContext *context, const ONNXImportOptions &options,
                StringRef modelPath)
      : context(context), options(options), modelPath(modelPath.str()),
        builder(context) {
    baseDir = llvm::sys::path::parent_path(modelPath).str();
  }

  OwningOpRef<ModuleOp> import(std::shared_ptr<onnx::ModelProto> model);

private:
  Location getFileLoc() {
    return FileLineColLoc::get(context, modelPath, 0, 0);
  }
  /// The node's name, or `<OpType>_<index>` for unnamed nodes.
  static std::string getNodeName(const onnx::NodeProto &node, int64_t index) {
    return node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                               : node.name();
  }
  Location getNodeLoc(StringRef name) {
    return NameLoc::get(StringAttr::get(context, name), getFileLoc());
  }
  FailureOr<int64_t> getOpset(const onnx::ModelProto &model);
  LogicalResult checkArity(const onnx::NodeProto &node, int64_t opset,
                           Location loc, StringRef name);
  LogicalResult checkSupported(const onnx::GraphProto &graph, int64_t opset);
  FailureOr<RankedTensorType> getInputType(const onnx::ValueInfoProto &info);

  MLIRContext *context;
  const ONNXImportOptions &options;
  std::string modelPath, baseDir;
  OpBuilder builder;
};
} // namespace

FailureOr<int64_t> ModelImporter::getOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &entry : model.opset_import()) {
    if (!entry.domain().empty() && entry.domain() != "ai.onnx")
      continue;
    int64_t version = entry.version();
    if (version < kMinOpset || version > kMaxOpset)
      return emitError(getFileLoc())
             << "unsupported ONNX opset " << version << " (nnaccel imports "
             << kMinOpset << " to " << kMaxOpset << ")";
    return version;
  }
  return emitError(getFileLoc())
         << "model declares no opset for the default ONNX domain";
}

/// Checks a node's inputs and outputs against the ONNX schema of its op at
/// `opset`, so converters can rely on every required input being present.
LogicalResult ModelImporter::checkArity(const onnx::NodeProto &node,
                                        int64_t opset, Location loc,
                                        StringRef name) {
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
  if (!schema)
    return success(); // The converter table is the authority then.
  auto error = [&]() {
    return emitError(loc) << "node '" << name << "' (" << node.op_type()
                          << "): ";
  };
  if (node.input_size() < schema->min_input() ||
      node.input_size() > schema->max_input())
    return error() << "has " << node.input_size() << " inputs, the schema "
                   << "at opset " << opset << " allows " << schema->min_input()
                   << " to " << schema->max_input();
  if (node.output_size() < schema->min_output() ||
      node.output_size() > schema->max_output())
    return error() << "has " << node.output_size() << " outputs, the schema "
                   << "at opset " << opset << " allows " << schema->min_output()
                   << " to " << schema->max_output();
  const auto &formals = schema->inputs();
  for (int i = 0; i < node.input_size(); ++i) {
    size_t formal = std::min<size_t>(i, formals.size() - 1);
    if (formals.empty() || !node.input(i).empty() ||
        formals[formal].GetOption() == onnx::OpSchema::Optional)
      continue;
    return error() << "required input #" << i << " ('"
                   << formals[formal].GetName() << "') is missing";
  }
  return success();
}

LogicalResult ModelImporter::checkSupported(const onnx::GraphProto &graph,
                                            int64_t opset) {
  struct Unsupported {
    int64_t count = 0;
    SmallVector<std::string, 3> names;
  };
  // Insertion-ordered: op types are reported in order of first appearance.
  SmallVector<std::pair<std::string, Unsupported>> unsupported;
  llvm::StringMap<size_t> position;
  for (const onnx::NodeProto &node : graph.node()) {
    if (findConverter(node, opset))
      continue;
    std::string key = node.domain().empty() || node.domain() == "ai.onnx"
                          ? node.op_type()
                          : node.domain() + "::" + node.op_type();
    auto [it, inserted] = position.try_emplace(key, unsupported.size());
    if (inserted)
      unsupported.push_back({key, Unsupported()});
    Unsupported &entry = unsupported[it->second].second;
    ++entry.count;
    if (entry.names.size() < 3)
      entry.names.push_back(node.name());
  }
  if (unsupported.empty())
    return success();
  InFlightDiagnostic diag = emitError(getFileLoc());
  diag << unsupported.size() << " unsupported op type(s) at opset " << opset
       << ":";
  for (auto &[type, entry] : unsupported) {
    diag << " " << type << " x" << entry.count << " (";
    llvm::interleaveComma(entry.names, diag, [&](const std::string &name) {
      diag << "'" << name << "'";
    });
    diag << ");";
  }
  return failure();
}

FailureOr<RankedTensorType>
ModelImporter::getInputType(const onnx::ValueInfoProto &info) {
  Location loc = getFileLoc();
  if (!info.type().has_tensor_type())
    return emitError(loc) << "graph input '" << info.name()
                          << "' is not a tensor";
  const onnx::TypeProto::Tensor &tensorType = info.type().tensor_type();
  Type elementType = convertElementType(tensorType.elem_type(), context);
  if (!elementType)
    return emitError(loc) << "graph input '" << info.name()
                          << "' has unsupported data type "
                          << onnxTypeName(tensorType.elem_type());
  auto fixed = options.inputShapes.find(info.name());
  if (!tensorType.has_shape()) {
    if (fixed == options.inputShapes.end())
      return emitError(loc) << "graph input '" << info.name()
                            << "' has no shape; give one with "
                               "--input-shape="
                            << info.name() << ":DIMxDIM...";
    if (failed(checkTensorSize(fixed->second, elementType,
                               "graph input '" + info.name() + "'", loc)))
      return failure();
    return RankedTensorType::get(fixed->second, elementType);
  }
  const onnx::TensorShapeProto &shape = tensorType.shape();
  auto padded = options.paddedDims.find(info.name());
  std::optional<std::pair<int64_t, int64_t>> pad;
  if (padded != options.paddedDims.end()) {
    pad = padded->second;
    if (pad->first < 0 || pad->first >= shape.dim_size())
      return emitError(loc)
             << "--buckets pads dimension " << pad->first << " of '"
             << info.name() << "', which has rank " << shape.dim_size();
  }
  if (fixed != options.inputShapes.end() &&
      static_cast<int64_t>(fixed->second.size()) != shape.dim_size())
    return emitError(loc) << "--input-shape gives " << fixed->second.size()
                          << " dimensions for '" << info.name()
                          << "', which has rank " << shape.dim_size();
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < shape.dim_size(); ++i) {
    const onnx::TensorShapeProto::Dimension &dim = shape.dim(i);
    bool known = dim.has_dim_value() && dim.dim_value() >= 0;
    if (pad && pad->first == i) {
      // A bucketed dimension: symbolic in the model, or already the size.
      if (known && dim.dim_value() != pad->second)
        return emitError(loc)
               << "--buckets pads dimension " << i << " of '" << info.name()
               << "' to " << pad->second << " but the model fixes it to "
               << dim.dim_value();
      dims.push_back(pad->second);
      continue;
    }
    if (fixed != options.inputShapes.end()) {
      int64_t given = fixed->second[i];
      if (known && dim.dim_value() != given)
        return emitError(loc)
               << "--input-shape sets dimension " << i << " of '" << info.name()
               << "' to " << given << " but the model fixes it to "
               << dim.dim_value();
      dims.push_back(given);
      continue;
    }
    if (!known)
      return emitError(loc)
             << "graph input '" << info.name() << "' has symbolic dimension "
             << i << " ('" << dim.dim_param()
             << "'); fix it with --input-shape=" << info.name()
             << ":DIMxDIM...";
    dims.push_back(dim.dim_value());
  }
  if (failed(checkTensorSize(dims, elementType,
                             "graph input '" + info.name() + "'", loc)))
    return failure();
  return RankedTensorType::get(dims, elementType);
}

/// Puts a node's hint on the accel ops its converter created (those after
/// `before` in `body`); a node that imports to no op gets a warning.
static void applyNodeHint(accel::HintAttr hint, Operation *before, Block &body,
                          StringRef name, Location loc) {
  auto ops = llvm::make_range(
      before ? std::next(before->getIterator()) : body.begin(), body.end());
  bool applied = false;
  for (Operation &op : ops)
    if (!isa<accel::ConstantOp>(op)) {
      op.setAttr(accel::AccelDialect::getHintAttrName(), hint);
      applied = true;
    }
  if (!applied)
    emitWarning(loc)
        << "node '" << name
        << "': its NodeOpt_NNACCEL_* hints have no op to apply to (the "
           "node imports to no computation)";
}

OwningOpRef<ModuleOp>
ModelImporter::import(std::shared_ptr<onnx::ModelProto> model) {
  FailureOr<int64_t> opset = getOpset(*model);
  if (failed(opset))
    return {};
  const onnx::GraphProto &graph = model->graph();
  if (failed(checkSupported(graph, *opset)))
    return {};

  llvm::StringMap<const onnx::TensorProto *> initializers;
  for (const onnx::TensorProto &tensor : graph.initializer())
    initializers[tensor.name()] = &tensor;

  for (const auto &entry : options.inputShapes) {
    bool found = llvm::any_of(graph.input(), [&](const auto &input) {
      return input.name() == entry.getKey();
    });
    if (!found)
      return (emitError(getFileLoc())
                  << "--input-shape names '" << entry.getKey()
                  << "', which is not a graph input",
              nullptr);
  }
  for (const auto &entry : options.paddedDims) {
    bool found = llvm::any_of(graph.input(), [&](const auto &input) {
      return input.name() == entry.getKey() &&
             !initializers.count(input.name());
    });
    if (!found)
      return (emitError(getFileLoc()) << "--buckets names '" << entry.getKey()
                                      << "', which is not a graph input",
              nullptr);
  }

  // Bound inputs (--bind-input) become constants, like initializers.
  std::vector<std::unique_ptr<onnx::TensorProto>> boundTensors;
  for (const auto &entry : options.boundInputs) {
    StringRef name = entry.getKey();
    bool found = llvm::any_of(graph.input(), [&](const auto &input) {
      return input.name() == name && !initializers.count(input.name());
    });
    if (!found)
      return (emitError(getFileLoc()) << "--bind-input names '" << name
                                      << "', which is not a graph input",
              nullptr);
    auto tensor = std::make_unique<onnx::TensorProto>();
    std::ifstream file(entry.getValue(), std::ios::binary);
    if (!file || !tensor->ParseFromIstream(&file))
      return (emitError(getFileLoc())
                  << "--bind-input " << name << ": cannot read an ONNX "
                  << "TensorProto from '" << entry.getValue() << "'",
              nullptr);
    tensor->set_name(name.str());
    boundTensors.push_back(std::move(tensor));
  }
  for (const auto &tensor : boundTensors)
    initializers[tensor->name()] = tensor.get();

  // Graph inputs (initializers may be listed as inputs too, IR < 4).
  SmallVector<Type> inputTypes;
  SmallVector<const onnx::ValueInfoProto *> inputs;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    FailureOr<RankedTensorType> type = getInputType(input);
    if (failed(type))
      return {};
    inputTypes.push_back(*type);
    inputs.push_back(&input);
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(getFileLoc());
  builder.setInsertionPointToEnd(module->getBody());
  auto func =
      builder.create<func::FuncOp>(getFileLoc(), options.functionName,
                                   builder.getFunctionType(inputTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  ValueMap values;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    values[input->name()] = body->getArgument(index);
    func.setArgAttr(index, "onnx.name", builder.getStringAttr(input->name()));
    if (auto padded = options.paddedDims.find(input->name());
        padded != options.paddedDims.end())
      func.setArgAttr(index, accel::AccelDialect::getPaddedAxisAttrName(),
                      builder.getI64IntegerAttr(padded->second.first));
  }
  std::shared_ptr<const void> owner = model;
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    Location loc =
        NameLoc::get(builder.getStringAttr(tensor.name()), getFileLoc());
    FailureOr<ElementsAttr> attr =
        importTensor(tensor, baseDir, owner, context, loc);
    if (failed(attr))
      return {};
    values[tensor.name()] = builder.create<accel::ConstantOp>(loc, *attr);
  }
  for (const auto &tensor : boundTensors) {
    Location loc =
        NameLoc::get(builder.getStringAttr(tensor->name()), getFileLoc());
    FailureOr<ElementsAttr> attr =
        importTensor(*tensor, baseDir, nullptr, context, loc);
    if (failed(attr))
      return {};
    values[tensor->name()] = builder.create<accel::ConstantOp>(loc, *attr);
  }

  // Diagnostics emitted at a node location by shared code (accel shape
  // inference, the verifier) get the node's name in front, since the
  // printed location only shows the model file.
  bool reemitting = false;
  ScopedDiagnosticHandler prefixNodeNames(context, [&](Diagnostic &diag) {
    auto name = dyn_cast<NameLoc>(diag.getLocation());
    std::string message = diag.str();
    if (reemitting || !name || StringRef(message).starts_with("node '"))
      return failure();
    reemitting = true;
    Diagnostic prefixed(diag.getLocation(), diag.getSeverity());
    prefixed << "node '" << name.getName().getValue() << "': " << message;
    context->getDiagEngine().emit(std::move(prefixed));
    reemitting = false;
    return success();
  });

  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string name = getNodeName(node, index);
    Location loc = getNodeLoc(name);
    if (failed(checkArity(node, *opset, loc, name)))
      return {};
    for (const std::string &input : node.input()) {
      if (!input.empty() && !values.count(input))
        return (emitError(loc) << "node '" << name << "' (" << node.op_type()
                               << "): input '" << input
                               << "' is not produced by any earlier node, "
                                  "initializer or graph input",
                nullptr);
    }
    FailureOr<accel::HintAttr> hint = readNodeHints(node, name, loc);
    if (failed(hint))
      return {};
    Operation *before = body->empty() ? nullptr : &body->back();
    NodeContext ctx(node, name, *opset, builder, values, loc);
    ctx.baseDir = baseDir;
    if (failed(findConverter(node, *opset)->convert(ctx)))
      return {};
    if (*hint)
      applyNodeHint(*hint, before, *body, name, loc);
  }

  SmallVector<Value> results;
  for (auto [index, output] : llvm::enumerate(graph.output())) {
    Value value = values.lookup(output.name());
    if (!value)
      return (emitError(getFileLoc()) << "graph output '" << output.name()
                                      << "' is not produced by any node",
              nullptr);
    results.push_back(value);
  }
  builder.create<func::ReturnOp>(getFileLoc(), results);
  func.setType(
      builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
  for (auto [index, output] : llvm::enumerate(graph.output()))
    func.setResultAttr(index, "onnx.name",
                       builder.getStringAttr(output.name()));

  if (failed(verify(*module)))
    return {};
  if (options.recognizeIdioms) {
    PassManager pm(context);
    pm.addNestedPass<func::FuncOp>(createAccelRecognizeIdioms());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addPass(createSymbolDCEPass());
    if (failed(pm.run(*module)))
      return {};
  }
  return module;
}

/// True when `buffer` looks like ONNX text: its first significant character
/// opens a model header or a graph.
static bool looksLikeText(StringRef buffer) {
  StringRef rest = buffer.ltrim();
  while (rest.starts_with("#")) {
    rest = rest.drop_until([](char c) { return c == '\n'; }).ltrim();
  }
  return !rest.empty() && (rest.front() == '<' || llvm::isAlpha(rest.front()));
}

OwningOpRef<ModuleOp>
mlir::nnaccel::importONNXBuffer(StringRef buffer, StringRef modelPath,
                                MLIRContext *context,
                                const ONNXImportOptions &options) {
  context->loadDialect<accel::AccelDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(context, modelPath, 0, 0);
  auto model = std::make_shared<onnx::ModelProto>();
  if (looksLikeText(buffer)) {
    // The parser wants a NUL-terminated string.
    std::string text = buffer.str();
    onnx::Common::Status status;
    try {
      status = onnx::OnnxParser::Parse(*model, text.c_str());
    } catch (const std::exception &e) {
      return (emitError(fileLoc) << "invalid ONNX text: " << e.what(), nullptr);
    }
    if (!status.IsOK())
      return (emitError(fileLoc)
                  << "invalid ONNX text: " << status.ErrorMessage(),
              nullptr);
  } else if (buffer.size() > INT_MAX ||
             !model->ParseFromArray(buffer.data(),
                                    static_cast<int>(buffer.size()))) {
    return (emitError(fileLoc) << "not a valid ONNX model: the protobuf is "
                                  "truncated or corrupt",
            nullptr);
  }
  if (!model->has_graph())
    return (emitError(fileLoc) << "ONNX model has no graph", nullptr);
  ModelImporter importer(context, options, modelPath);
  return importer.import(std::move(model));
}

OwningOpRef<ModuleOp>
mlir::nnaccel::importONNXFile(StringRef path, MLIRContext *context,
                              const ONNXImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "cannot open ONNX model: " << buffer.getError().message();
    return nullptr;
  }
  return importONNXBuffer((*buffer)->getBuffer(), path, context, options);
}

void mlir::nnaccel::registerONNXImportDialects(DialectRegistry &registry) {
  registry.insert<accel::AccelDialect, func::FuncDialect>();
}
