# Scalar unit and nested hardware loops with register-offset addressing.
.isa 1.0
.core card=0, core=2
s.li s1, imm=3
s.li s2, imm=-64
s.addi s3, s1, imm=5
s.muli s4, s3, imm=128
s.add s5, s4, s1
s.sub s6, s5, s1
s.mul s7, s6, s1
s.shli s8, s7, sh=2
s.shri s9, s8, sh=1
nop
loop.r s10, s1, step=256
loop s11, count=2, step=64
s.add s12, s10, s11
v.fill vrf[s12], f32, rows=1, cols=16, imm=-1.5
endloop
endloop
v.max vrf[0x1000], vrf[0x0], vrf[0x40], f32, f32, f32, rows=1, cols=16
vs.min vrf[0x1100], vrf[0x1000], f32, f32, rows=1, cols=16, imm=2
v.dqnt vrf[0x1200], vrf[0x1100], vrf[0x1000], f16, i8, rows=1, cols=16, zp=12
halt
