// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-embeddings))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-embeddings{bits=8}))' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=RW8
// RUN: not nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-embeddings{bits=3}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BITS

// BITS: error: accel-quantize-embeddings: bits must be 4 or 8, got 3

// The byte layout of a 3 x 3 table (after the blob's 4-byte alignment
// header 08000000), row by row:
//  - [0, 1.5, 3]: bias 0 (0x0000), scale 3 / 15 = 0.2 -> f16 0x3266
//    (0.19995); codes 0, round(7.502) = 8, round(15.004) = 15, packed two
//    per byte, the even element in the low nibble: 80 0F; then scale and
//    bias little-endian: 80 0F 66 32 00 00.
//  - [-1, -1, -1]: a constant row stores scale 1 (0x3C00), bias -1
//    (0xBC00), codes 0: 00 00 00 3C 00 BC.
//  - [2, 0.5, -0.25]: bias -0.25 (0xB400), scale 2.25 / 15 -> 0x30CD
//    (0.15002); codes 15, 5, 0: 5F 00 CD 30 00 B4.
// rw8 rows are [3 x u8][f32 scale][f32 bias]: row 0 codes 00 80 FF
// (1.5 / 0.01176 = 127.5 -> 128), scale 3 / 255 = 0x3C40C0C1, bias 0.
// CHECK-LABEL: func.func @bag
// CHECK-NEXT: %[[T:.*]] = accel.constant dense_resource<table_rw4> : tensor<3x3x!accel.rowwise<4>>
// CHECK-NEXT: %[[R:.*]] = accel.embedding_bag %[[T]], %arg0 : (tensor<3x3x!accel.rowwise<4>>, tensor<2x2xi64>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]]
// CHECK: table_rw4: "0x08000000800F663200000000003C00BC5F00CD3000B4"
// RW8-LABEL: func.func @bag
// RW8: accel.constant dense_resource<table_rw8> : tensor<3x3x!accel.rowwise<8>>
// RW8: table_rw8: "0x080000000080FFC1C0403C000000000000000000803F000080BFFF55009190103C000080BE"
func.func @bag(%ids: tensor<2x2xi64>) -> tensor<2x3xf32> {
  %t = accel.constant dense<[[0.0, 1.5, 3.0], [-1.0, -1.0, -1.0], [2.0, 0.5, -0.25]]> : tensor<3x3xf32>
  %r = accel.embedding_bag %t, %ids : (tensor<3x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Precision hints decide per node: i8 gives an rw8 table, i4 rw4 (whatever
// the pass's bits), f32 keeps the f32 table and leaves the hint without its
// precision, f16 is accel-apply-precision's (the hint stays), another
// integer width is a warning.
// CHECK-LABEL: func.func @hints
// CHECK-DAG: %[[T8:.*]] = accel.constant dense_resource<table_rw8> : tensor<4x4x!accel.rowwise<8>>
// CHECK-DAG: %[[T4:.*]] = accel.constant dense_resource<table_rw4> : tensor<4x4x!accel.rowwise<4>>
// CHECK-DAG: %[[F:.*]] = accel.constant dense<{{.*}}> : tensor<4x4xf32>
// CHECK: accel.embedding_bag %[[T8]], %arg0 : (tensor<4x4x!accel.rowwise<8>>
// CHECK-NOT: accel.hint
// CHECK: accel.embedding_bag %[[T4]], %arg0 {accel.hint = #accel.hint<card = 0>} : (tensor<4x4x!accel.rowwise<4>>
// CHECK: accel.embedding_bag %[[F]], %arg0 : (tensor<4x4xf32>
// CHECK: accel.embedding_bag %[[F]], %arg0 {accel.hint = #accel.hint<precision = f16>} : (tensor<4x4xf32>
// CHECK: accel.embedding_bag %[[F]], %arg0 : (tensor<4x4xf32>
// RW8-LABEL: func.func @hints
// RW8-DAG: accel.constant dense_resource<table_rw8> : tensor<4x4x!accel.rowwise<8>>
// RW8-DAG: accel.constant dense_resource<table_rw4> : tensor<4x4x!accel.rowwise<4>>
func.func @hints(%ids: tensor<2x2xi64>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %t = accel.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [-1.0, 0.5, 0.25, 2.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<4x4xf32>
  %a = accel.embedding_bag %t, %ids {accel.hint = #accel.hint<precision = i8>} : (tensor<4x4xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  %b = accel.embedding_bag %t, %ids {accel.hint = #accel.hint<card = 0, precision = i4>} : (tensor<4x4xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  %c = accel.embedding_bag %t, %ids {accel.hint = #accel.hint<precision = f32>} : (tensor<4x4xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  %d = accel.embedding_bag %t, %ids {accel.hint = #accel.hint<precision = f16>} : (tensor<4x4xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  // expected-warning @+1 {{accel.embedding_bag: its table stays f32, not 'i2': rowwise tables have 4- or 8-bit codes}}
  %e = accel.embedding_bag %t, %ids {accel.hint = #accel.hint<precision = i2>} : (tensor<4x4xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  return %a, %b, %c, %d, %e : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Left alone: a table that is no constant, a non-f32 table, a gather of
// columns; a table another op also reads keeps its f32 constant for that
// reader.
// CHECK-LABEL: func.func @kept
// CHECK: accel.embedding_bag %arg0, %arg1 : (tensor<10x4xf32>
// CHECK: accel.embedding_bag %{{.*}}, %arg1 : (tensor<10x4xf16>
// CHECK: accel.gather %{{.*}}, %arg2 {axis = 1 : i64} : (tensor<10x4xf32>
// CHECK-DAG: %[[F:.*]] = accel.constant dense<2.000000e+00> : tensor<10x4xf32>
// CHECK-DAG: %[[Q:.*]] = accel.constant dense_resource<table_rw4> : tensor<10x4x!accel.rowwise<4>>
// CHECK: accel.embedding_bag %[[Q]], %arg1 : (tensor<10x4x!accel.rowwise<4>>
// CHECK: accel.relu %[[F]]
func.func @kept(%t: tensor<10x4xf32>, %ids: tensor<2x2xi64>, %cols: tensor<2xi64>)
    -> (tensor<2x4xf32>, tensor<2x4xf16>, tensor<10x2xf32>, tensor<2x4xf32>, tensor<10x4xf32>) {
  %a = accel.embedding_bag %t, %ids : (tensor<10x4xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  %h = accel.constant dense<1.0> : tensor<10x4xf16>
  %b = accel.embedding_bag %h, %ids : (tensor<10x4xf16>, tensor<2x2xi64>) -> tensor<2x4xf16>
  %c = accel.constant dense<1.5> : tensor<10x4xf32>
  %d = accel.gather %c, %cols {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2xi64>) -> tensor<10x2xf32>
  %f = accel.constant dense<2.0> : tensor<10x4xf32>
  %e = accel.embedding_bag %f, %ids : (tensor<10x4xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  %r = accel.relu %f : tensor<10x4xf32>
  return %a, %b, %d, %e, %r : tensor<2x4xf32>, tensor<2x4xf16>, tensor<10x2xf32>, tensor<2x4xf32>, tensor<10x4xf32>
}

// -----

// Rows the format cannot hold stay f32, with the reason: a non-finite
// value, and for 4 bits a minimum beyond the f16 range (8 bits store it in
// f32); so does a table whose blob has no data.
// CHECK-LABEL: func.func @unquantizable
// CHECK: accel.embedding_bag %{{.*}}, %arg0 : (tensor<2x2xf32>
// CHECK: accel.embedding_bag %{{.*}}, %arg0 : (tensor<2x2xf32>
// RW8-LABEL: func.func @unquantizable
// RW8: accel.embedding_bag %{{.*}}, %arg0 : (tensor<2x2xf32>
// RW8: accel.embedding_bag %{{.*}}, %arg0 : (tensor<2x2x!accel.rowwise<8>>
func.func @unquantizable(%ids: tensor<2x2xi64>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %inf = accel.constant dense<[[1.0, 2.0], [0x7F800000, 0.0]]> : tensor<2x2xf32>
  // expected-warning @+1 {{accel.embedding_bag: its table stays f32, not rw4: row 1: non-finite value in embedding row at column 0}}
  %a = accel.embedding_bag %inf, %ids : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  %big = accel.constant dense<[[1.0, 2.0], [-70000.0, 0.0]]> : tensor<2x2xf32>
  // expected-warning @+1 {{accel.embedding_bag: its table stays f32, not rw4: row 1: 4-bit row minimum outside the fp16 range}}
  %b = accel.embedding_bag %big, %ids : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  %none = accel.constant dense_resource<nowhere> : tensor<2x2xf32>
  // expected-warning @+1 {{accel.embedding_bag: its table stays f32, not rw4: its data cannot be read}}
  %c = accel.embedding_bag %none, %ids : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %a, %b : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A table shared by a weighted mean bag (lengths), a sum bag (offsets) and
// a row gather is quantized once and the f32 table goes; the results stay
// f32. A gather at constant indices is a slice, not a lookup: its table
// stays f32.
// CHECK-LABEL: func.func @shared
// CHECK: %[[T:.*]] = accel.constant dense_resource<emb_rw4> : tensor<100x8x!accel.rowwise<4>>
// CHECK-NOT: tensor<100x8xf32>
// CHECK: accel.embedding_bag %[[T]], %arg0 lengths %arg1 weights %arg2 {mode = #accel.bag_mode<mean>} : (tensor<100x8x!accel.rowwise<4>>, tensor<12xi32>, tensor<4xi32>, tensor<12xf32>) -> tensor<4x8xf32>
// CHECK: accel.embedding_bag %[[T]], %arg3 offsets %arg4 : (tensor<100x8x!accel.rowwise<4>>, tensor<12xi64>, tensor<4xi64>) -> tensor<4x8xf32>
// CHECK: accel.gather %[[T]], %arg5 : (tensor<100x8x!accel.rowwise<4>>, tensor<6xi32>) -> tensor<6x8xf32>
// CHECK: accel.gather %{{.*}}, %{{.*}} : (tensor<100x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
// Each 8-wide row spans 1.75 (scale 1.75 / 15 -> f16 0x2F77), codes
// 0 2 4 6 9 11 13 15: 20 64 B9 FD, then the scale and the row's bias.
// CHECK: emb_rw4: "0x080000002064B9FD772F00002064B9FD772F003C
func.func @shared(%ids: tensor<12xi32>, %len: tensor<4xi32>, %w: tensor<12xf32>,
                  %ids2: tensor<12xi64>, %off: tensor<4xi64>, %rows: tensor<6xi32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<6x8xf32>, tensor<2x4xf32>) {
  %t = accel.constant dense_resource<emb> : tensor<100x8xf32>
  %a = accel.embedding_bag %t, %ids lengths %len weights %w {mode = #accel.bag_mode<mean>} : (tensor<100x8xf32>, tensor<12xi32>, tensor<4xi32>, tensor<12xf32>) -> tensor<4x8xf32>
  %b = accel.embedding_bag %t, %ids2 offsets %off : (tensor<100x8xf32>, tensor<12xi64>, tensor<4xi64>) -> tensor<4x8xf32>
  %c = accel.gather %t, %rows {axis = 0 : i64} : (tensor<100x8xf32>, tensor<6xi32>) -> tensor<6x8xf32>
  %s = accel.constant dense<1.0> : tensor<100x4xf32>
  %i = accel.constant dense<[3, 7]> : tensor<2xi64>
  %d = accel.gather %s, %i {axis = 0 : i64} : (tensor<100x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %a, %b, %c, %d : tensor<4x8xf32>, tensor<4x8xf32>, tensor<6x8xf32>, tensor<2x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      emb: "0x04000000000000000000803E0000003F0000403F0000803F0000A03F0000C03F0000E03F0000803F0000A03F0000C03F0000E03F0000004000001040000020400000304000000040000010400000204000003040000040400000504000006040000070400000404000005040000060400000704000008040000088400000904000009840000080400000884000009040000098400000A0400000A8400000B0400000B8400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F84000006041000064410000684100006C4100007041000074410000784100007C4100007041000074410000784100007C4100008041000082410000844100008641000080410000824100008441000086410000884100008A4100008C4100008E410000884100008A4100008C4100008E4100009041000092410000944100009641000090410000924100009441000096410000984100009A4100009C4100009E410000984100009A4100009C4100009E410000A0410000A2410000A4410000A6410000A0410000A2410000A4410000A6410000A8410000AA410000AC410000AE410000E0410000E2410000E4410000E6410000E8410000EA410000EC410000EE410000E8410000EA410000EC410000EE410000F0410000F2410000F4410000F6410000F0410000F2410000F4410000F6410000F8410000FA410000FC410000FE410000F8410000FA410000FC410000FE4100000042000001420000024200000342000000420000014200000242000003420000044200000542000006420000074200000442000005420000064200000742000008420000094200000A4200000B42000008420000094200000A4200000B4200000C4200000D4200000E4200000F42000028420000294200002A4200002B4200002C4200002D4200002E4200002F4200002C4200002D4200002E4200002F4200003042000031420000324200003342000030420000314200003242000033420000344200003542000036420000374200003442000035420000364200003742000038420000394200003A4200003B42000038420000394200003A4200003B4200003C4200003D4200003E4200003F4200003C4200003D4200003E4200003F42000040420000414200004242000043420000404200004142000042420000434200004442000045420000464200004742000060420000614200006242000063420000644200006542000066420000674200006442000065420000664200006742000068420000694200006A4200006B42000068420000694200006A4200006B4200006C4200006D4200006E4200006F4200006C4200006D4200006E4200006F4200007042000071420000724200007342000070420000714200007242000073420000744200007542000076420000774200007442000075420000764200007742000078420000794200007A4200007B42000078420000794200007A4200007B4200007C4200007D4200007E4200007F4200008C4200808C4200008D4200808D4200008E4200808E4200008F4200808F4200008E4200808E4200008F4200808F420000904200809042000091420080914200009042008090420000914200809142000092420080924200009342008093420000924200809242000093420080934200009442008094420000954200809542000094420080944200009542008095420000964200809642000097420080974200009642008096420000974200809742000098420080984200009942008099420000984200809842000099420080994200009A4200809A4200009B4200809B420000A8420080A8420000A9420080A9420000AA420080AA420000AB420080AB420000AA420080AA420000AB420080AB420000AC420080AC420000AD420080AD420000AC420080AC420000AD420080AD420000AE420080AE420000AF420080AF420000AE420080AE420000AF420080AF420000B0420080B0420000B1420080B1420000B0420080B0420000B1420080B1420000B2420080B2420000B3420080B3420000B2420080B2420000B3420080B3420000B4420080B4420000B5420080B5420000B4420080B4420000B5420080B5420000B6420080B6420000B7420080B7420000C4420080C4420000C5420080C5420000C6420080C6420000C7420080C7420000C6420080C6420000C7420080C7420000C8420080C8420000C9420080C9420000C8420080C8420000C9420080C9420000CA420080CA420000CB420080CB420000CA420080CA420000CB420080CB420000CC420080CC420000CD420080CD420000CC420080CC420000CD420080CD420000CE420080CE420000CF420080CF420000CE420080CE420000CF420080CF420000D0420080D0420000D1420080D1420000D0420080D0420000D1420080D1420000D2420080D2420000D3420080D3420000E0420080E0420000E1420080E1420000E2420080E2420000E3420080E3420000E2420080E2420000E3420080E3420000E4420080E4420000E5420080E5420000E4420080E4420000E5420080E5420000E6420080E6420000E7420080E7420000E6420080E6420000E7420080E7420000E8420080E8420000E9420080E9420000E8420080E8420000E9420080E9420000EA420080EA420000EB420080EB420000EA420080EA420000EB420080EB420000EC420080EC420000ED420080ED420000EC420080EC420000ED420080ED420000EE420080EE420000EF420080EF420000FC420080FC420000FD420080FD420000FE420080FE420000FF420080FF420000FE420080FE420000FF420080FF4200000043004000430080004300C0004300000043004000430080004300C0004300000143004001430080014300C0014300000143004001430080014300C0014300000243004002430080024300C0024300000243004002430080024300C0024300000343004003430080034300C0034300000343004003430080034300C0034300000443004004430080044300C0044300000443004004430080044300C0044300000543004005430080054300C0054300000C4300400C4300800C4300C00C4300000D4300400D4300800D4300C00D4300000D4300400D4300800D4300C00D4300000E4300400E4300800E4300C00E4300000E4300400E4300800E4300C00E4300000F4300400F4300800F4300C00F4300000F4300400F4300800F4300C00F4300001043004010430080104300C0104300001043004010430080104300C0104300001143004011430080114300C0114300001143004011430080114300C0114300001243004012430080124300C0124300001243004012430080124300C0124300001343004013430080134300C0134300001A4300401A4300801A4300C01A4300001B4300401B4300801B4300C01B4300001B4300401B4300801B4300C01B4300001C4300401C4300801C4300C01C4300001C4300401C4300801C4300C01C4300001D4300401D4300801D4300C01D4300001D4300401D4300801D4300C01D4300001E4300401E4300801E4300C01E4300001E4300401E4300801E4300C01E4300001F4300401F4300801F4300C01F4300001F4300401F4300801F4300C01F4300002043004020430080204300C0204300002043004020430080204300C0204300002143004021430080214300C0214300002843004028430080284300C0284300002943004029430080294300C0294300002943004029430080294300C0294300002A4300402A4300802A4300C02A4300002A4300402A4300802A4300C02A4300002B4300402B4300802B4300C02B4300002B4300402B4300802B4300C02B4300002C4300402C4300802C4300C02C4300002C4300402C4300802C4300C02C4300002D4300402D4300802D4300C02D4300002D4300402D4300802D4300C02D4300002E4300402E4300802E4300C02E4300002E4300402E4300802E4300C02E4300002F4300402F4300802F4300C02F4300003643004036430080364300C0364300003743004037430080374300C0374300003743004037430080374300C0374300003843004038430080384300C0384300003843004038430080384300C0384300003943004039430080394300C0394300003943004039430080394300C0394300003A4300403A4300803A4300C03A4300003A4300403A4300803A4300C03A4300003B4300403B4300803B4300C03B4300003B4300403B4300803B4300C03B4300003C4300403C4300803C4300C03C4300003C4300403C4300803C4300C03C4300003D4300403D4300803D4300C03D4300004443004044430080444300C0444300004543004045430080454300C0454300004543004045430080454300C0454300004643004046430080464300C04643"
    }
  }
#-}
