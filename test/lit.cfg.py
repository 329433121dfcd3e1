# lit configuration for nnaccel's FileCheck tests.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "nnaccel"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtxt", ".s", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nnaccel_obj_root, "test")
config.substitutions.append(("%nnaccel_src_root", config.nnaccel_src_root))
# The tools without the substitutions' extra arguments (below), for a test
# of what those arguments switch off.
config.substitutions.append(("%nnaccel_tools_dir", config.nnaccel_tools_dir))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.nnaccel_tools_dir, append_path=True)

# Every nnaccel-run in the tests checks card partitions for data races
# between queues and cores (docs/emulator.md §7): compiler-generated
# programs must be properly synchronised, not just right in the emulator's
# schedule.
extra_args = {"nnaccel-run": ["--check-races"]}
tools = ["nnaccel-opt", "nnaccel-translate", "nnaccel-compile", "nnaccel-run",
         "nnaccel-pkg", "nnaccel-emu"]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, extra_args=extra_args.get(t)) for t in tools
     if os.path.exists(os.path.join(config.nnaccel_tools_dir, t))],
    [config.nnaccel_tools_dir])
