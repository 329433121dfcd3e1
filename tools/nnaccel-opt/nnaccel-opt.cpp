//===- nnaccel-opt.cpp - nnaccel optimizer driver -------------------------===//
//
// mlir-opt for nnaccel: registers the accel and npu dialects with the
// upstream dialects their IR mixes with (func, arith, quant, tensor) and the
// generic MLIR passes, and follows mlir-opt's command line conventions.
// `--npu-target` names the target npu programs without one are verified
// against.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelDialect.h"
#include "NPU/NPUDialect.h"
#include "NPU/NPUTarget.h"
#include "nnaccel/Conversion/NPUKernels.h"
#include "nnaccel/Conversion/Passes.h"
#include "nnaccel/Pipelines/Pipelines.h"
#include "nnaccel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::nnaccel::registerNNAccelTransformsPasses();
  mlir::nnaccel::registerNNAccelConversionPasses();
  mlir::nnaccel::registerNNAccelPipelines();
  mlir::nnaccel::npu::registerNPUTargetCLOptions();

  mlir::DialectRegistry registry;
  registry.insert<mlir::nnaccel::accel::AccelDialect,
                  mlir::nnaccel::npu::NPUDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::quant::QuantizationDialect,
                  mlir::tensor::TensorDialect>();
  mlir::nnaccel::registerNPUKernelModels(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nnaccel optimizer driver\n", registry));
}
