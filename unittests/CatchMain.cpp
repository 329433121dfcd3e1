//===- CatchMain.cpp - Catch2 main for all unit tests ---------------------===//
//
// The one translation unit that instantiates Catch2's runner, so the test
// files themselves compile quickly.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
