# Assembly that parses but fails verification is reported by the npu
# verifier at the offending instruction's line and column.
# RUN: not nnaccel-translate --asm-to-npu %s 2>&1 | FileCheck %s
# RUN: not nnaccel-translate --asm-to-npu --npu-target=default %s 2>&1 | FileCheck %s --check-prefix=TARGET
# CHECK: asm-verify-error.s:12:1: error: 'npu.s.li' op control instructions cannot pop or push tokens
# TARGET: asm-verify-error.s:12:1: error: 'npu.s.li' op control instructions cannot pop or push tokens

.isa 1.0
.core card=0, core=0

nop
s.li s1, imm=1 @push_next
halt
