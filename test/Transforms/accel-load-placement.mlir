// RUN: nnaccel-opt %s --pass-pipeline='builtin.module(accel-load-placement{file=%S/Inputs/placement.json})' \
// RUN:   2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// Malformed files are errors that name the file and the entry.
// RUN: not nnaccel-opt %s --pass-pipeline='builtin.module(accel-load-placement{file=%S/Inputs/placement-bad-key.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KEY
// RUN: not nnaccel-opt %s --pass-pipeline='builtin.module(accel-load-placement{file=%S/Inputs/placement-bad-regex.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REGEX
// RUN: not nnaccel-opt %s --pass-pipeline='builtin.module(accel-load-placement{file=%S/Inputs/placement-no-match-key.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MATCH
// RUN: not nnaccel-opt %s --pass-pipeline='builtin.module(accel-load-placement{file=%S/Inputs/placement-bad-kind.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KIND
// RUN: not nnaccel-opt %s --pass-pipeline='builtin.module(accel-load-placement{file=%S/Inputs/placement-bad-memory.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MEMORY
// RUN: not nnaccel-opt %s --pass-pipeline='builtin.module(accel-load-placement{file=%S/Inputs/placement-bad-json.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=JSON
// RUN: not nnaccel-opt %s --pass-pipeline='builtin.module(accel-load-placement{file=%S/Inputs/no-such-file.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING

// Entries match by node name and op name (regular expressions over the
// whole name, `accel.` optional); the first entry that matches wins, so
// fc2 gets the fc entry, not the host one. Fields an entry sets replace the
// op's own hint fields and keep the others.
// CHECK-LABEL: func.func @model
// CHECK: accel.fully_connected {{.*}}{accel.hint = #accel.hint<cores = [0, 1], parallel = model>}
// CHECK: accel.fully_connected {{.*}}{accel.hint = #accel.hint<cores = [0, 1], parallel = model>}
// CHECK: accel.relu {{.*}}{accel.hint = #accel.hint<card = 0, memory = local, order = 2>}
// CHECK: accel.softmax {{.*}}accel.hint = #accel.hint<chunks = 3, memory = shared, precision = f16>
// CHECK: accel.tanh
// CHECK-NOT: accel.hint
// WARN: placement.json:0:0: warning: placement file entry #1 (node "fc2") matches no op
// WARN: placement.json:0:0: warning: placement file entry #4 (node "nothing_is_called_this") matches no op
// KEY: placement-bad-key.json:0:0: error: placement file entry #1: unknown key "core" (expected node, op, card, cores, chunks, parallel, memory, precision or order)
// REGEX: error: placement file entry #0: "node" is not a valid regular expression: parentheses not balanced
// MATCH: error: placement file entry #0: needs "node" or "op" to say what it matches
// KIND: error: placement file entry #0: "parallel" must be "data" or "model", got "pipeline"
// MEMORY: error: placement file entry #0: "memory" must be SRAM, SHARED or DRAM, got "local"
// JSON: placement-bad-json.json:0:0: error: placement file: invalid JSON: [1:29, byte=29]: Expected object key
// MISSING: error: placement file: cannot read '{{.*}}no-such-file.json': No such file or directory
func.func @model(%x: tensor<2x64xf32>, %w: tensor<64x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>) {
  %0 = accel.fully_connected %x, %w : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("fc1")
  %1 = accel.fully_connected %0, %w : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("fc2")
  %2 = accel.relu %1 {accel.hint = #accel.hint<card = 0, memory = dram>} : tensor<2x64xf32> loc("act")
  %3 = accel.softmax %2 {axis = -1 : i64} : tensor<2x64xf32> loc("head")
  %4 = accel.tanh %3 : tensor<2x64xf32> loc("out")
  return %2, %4 : tensor<2x64xf32>, tensor<2x64xf32>
}
