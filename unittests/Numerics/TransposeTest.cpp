//===- TransposeTest.cpp - strided element transposes ---------------------===//
//
// transposeElements against its definition, for 1-, 2- and 4-byte elements,
// both the vector blocks and the element loop, over shapes with whole 16 x
// 16 blocks, edges on either side and none at all, with padded row strides:
// every element lands where the definition says, and no byte outside the
// destination box (the stride padding) changes.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Transpose.h"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using namespace nnaccel::numerics;

TEST_CASE("transposeElements is dst[c][r] = src[r][c]", "[transpose]") {
  std::mt19937 rng(5);
  size_t checked = 0;
  for (unsigned e : {1u, 2u, 4u})
    for (size_t rows : {1u, 3u, 15u, 16u, 17u, 32u, 48u, 70u})
      for (size_t cols : {1u, 2u, 16u, 31u, 33u, 64u, 100u})
        for (size_t pad : {0u, 5u})
          for (bool vector : {false, true}) {
            INFO("elem " << e << " rows " << rows << " cols " << cols << " pad "
                         << pad << " vector " << vector);
            const size_t srcStride = cols * e + pad, dstStride = rows * e + pad;
            std::vector<uint8_t> src(rows * srcStride), dst(cols * dstStride);
            for (uint8_t &b : src)
              b = static_cast<uint8_t>(rng());
            for (uint8_t &b : dst)
              b = 0xA5;
            REQUIRE(transposeElements(src.data(), srcStride, dst.data(),
                                      dstStride, rows, cols, e, vector));
            for (size_t c = 0; c < cols; ++c)
              for (size_t off = 0; off < dstStride; ++off) {
                const size_t r = off / e;
                const uint8_t want =
                    r < rows ? src[r * srcStride + c * e + off % e] : 0xA5;
                REQUIRE(dst[c * dstStride + off] == want);
                ++checked;
              }
          }
  REQUIRE(checked > 100000);
  uint8_t one = 0;
  REQUIRE_FALSE(transposeElements(&one, 3, &one, 3, 1, 1, 3));
}
