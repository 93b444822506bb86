# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MIRAGE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mirage_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mirage_src_root", config.mirage_src_root))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
# The Mirage plugin for the stock mlir-opt (test/Plugin).
config.substitutions.append(("%mirage_plugin", config.mirage_plugin))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.mirage_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("mirage-opt", unresolved="fatal"),
    ToolSubst("FileCheck", unresolved="fatal"),
    ToolSubst("not", unresolved="fatal"),
    ToolSubst("count", unresolved="fatal"),
    ToolSubst("mirage-cache-poison", unresolved="fatal"),
    ToolSubst("mlir-opt", unresolved="ignore"),
    ToolSubst("mlir-runner", unresolved="ignore"),
    # Not fatal: a build that has not made mirage-run yet fails only the
    # test/Tools/mirage-run tests (command not found), not the whole suite.
    ToolSubst("mirage-run", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# A sanitized build reserves terabytes of shadow address space, so tests that
# lower the process's address-space limit say `UNSUPPORTED: sanitizer`.
if config.mirage_sanitizer:
    config.available_features.add("sanitizer")

# Features for tests that need the CUDA toolkit (ptxas) or a GPU. Tests that
# need them say `REQUIRES: ptxas` / `REQUIRES: cuda-gpu` and are reported
# UNSUPPORTED where they are missing, never silently passed.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
if os.path.exists("/dev/nvidia0"):
    config.available_features.add("cuda-gpu")
# `cuda-driver`: libcuda.so.1 loads, exactly what mirage-run dlopens; tests of
# its no-driver path say `UNSUPPORTED: cuda-driver`. (Not
# ctypes.util.find_library("cuda"): it also finds the toolkit's link-time stub
# in lib64/stubs, which is no driver.)
def _has_cuda_driver():
    import ctypes
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False
if _has_cuda_driver():
    config.available_features.add("cuda-driver")
