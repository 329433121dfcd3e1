//===- TestModel.h - Shared fixtures for the package tests -----*- C++ -*-===//
//
// A small but complete model that exercises every manifest feature (two
// padding buckets, host and card partitions, quantised tensors, weights
// shared between variants, all attribute kinds, the IR text), plus helpers
// for temporary files and hand-made ISA program headers.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_UNITTESTS_PACKAGE_TESTMODEL_H
#define NNACCEL_UNITTESTS_PACKAGE_TESTMODEL_H

#include "nnaccel/Package/Package.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace nnaccel::package::test {

/// An ISA program binary: the 32-byte "NNPU" header for (card, core) and
/// `words` instruction words of filler (the package does not decode them).
std::vector<uint8_t> makeProgram(uint16_t card, uint16_t core, uint32_t words);

/// A unique, initially empty directory removed on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  std::string file(const std::string &name) const {
    return (path_ / name).string();
  }

private:
  std::filesystem::path path_;
};

/// Fills `builder` with the reference model: an int8 classifier-like graph
/// with input "tokens" [1, seq] (seq bucketed at 64 and 128) and output
/// "logits" [1, seq, 16], each variant = host embedding lookup -> card
/// matmul -> host softmax. Returns the number of distinct weights added.
size_t buildTestModel(PackageBuilder &builder);

/// Reads a whole file.
std::vector<uint8_t> readFile(const std::string &path);
/// Writes a whole file.
void writeFile(const std::string &path, const std::vector<uint8_t> &bytes);

/// Recomputes both CRCs of a package image in place (after a test edits the
/// bytes on purpose, to reach the checks behind the CRCs).
void refreshChecksums(std::vector<uint8_t> &file);

} // namespace nnaccel::package::test

#endif // NNACCEL_UNITTESTS_PACKAGE_TESTMODEL_H
