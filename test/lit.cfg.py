# -*- Python -*-
# lit configuration for amp's FileCheck tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "AMP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = config.amp_test_src_dir
config.test_exec_root = config.amp_test_obj_dir
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "check_report.py", "check_data_parallel.py", "check_skips.py", "check_same_run.py", "compare_outputs.py", "Install", "corpus", "data-corpus", "regressions"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))

# FileCheck, not, count and split-file live unsuffixed in the LLVM bin dir.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.amp_tools_dir, append_path=True)
llvm_config.use_default_substitutions()
config.substitutions.append(("%python", "python3"))
config.substitutions.append(("%amp_lib", os.path.join(config.amp_obj_root, "lib")))
config.substitutions.append(("%amp_bin", config.amp_tools_dir))
# Programs the tests link against amp's libraries take the build's sanitizers.
config.substitutions.append(
    ("%host_cxx", (config.host_cxx + " " + config.sanitizer_flags).strip()))
if config.sanitizer_flags:
    config.available_features.add("sanitizers")
config.substitutions.append(("%amp_src", config.amp_src_root))
config.substitutions.append(("%mlir_include", config.mlir_include_dir))

# The CUDA backend when it was built, a GPU when the machine has one, and
# the host-emulated device (a test library that runs the CUDA backend's op
# code on the host) for the device paths everywhere else.
amp_lib = os.path.join(config.amp_obj_root, "lib")
if os.path.exists(os.path.join(amp_lib, "libamprt_cuda.so")):
    config.available_features.add("cuda-backend")
if os.path.exists("/dev/nvidiactl"):
    config.available_features.add("cuda-device")
config.substitutions.append(
    ("%emulated_device",
     "env AMPRT_CUDA_LIBRARY=" + os.path.join(amp_lib, "libamprt_emulated_device.so")))

# Captured names must not leak between functions.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"

tools = ["amp-opt", "amp-run", "amp-train", "amp-pipeline-fuzzer",
         "amp-data-fuzzer", "amp-tblgen"]
llvm_config.add_tool_substitutions(tools, [config.amp_tools_dir, config.llvm_tools_dir])

# Upstream MLIR alone (Debian's mlir-opt-22 and mlir-runner-22) lowers and
# runs what amp hands back to other compilers: the integration tests prove
# it. The pipeline is upstream's: tensors to buffers, linalg to loops, to
# LLVM.
import shutil
llvm_lib = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
runner_libs = [os.path.join(llvm_lib, name) for name in
               ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so")]
if (shutil.which("mlir-opt-22") and shutil.which("mlir-runner-22")
        and all(os.path.exists(lib) for lib in runner_libs)
        and os.path.exists(os.path.join(llvm_lib, "libmlir_apfloat_wrappers.so"))):
    config.available_features.add("upstream-mlir-runner")
config.substitutions.append(
    ("%upstream_to_llvm",
     "mlir-opt-22 --pass-pipeline=\"builtin.module("
     "func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),"
     "convert-elementwise-to-linalg,"
     "one-shot-bufferize{bufferize-function-boundaries},"
     "convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,"
     "lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,"
     "convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
     "convert-index-to-llvm,reconcile-unrealized-casts)\""))
# FP8 programs: upstream lowers FP8 conversions to calls of its APFloat
# runtime library (LLVM has no FP8 types).
config.substitutions.append(
    ("%fp8_upstream_to_llvm",
     "mlir-opt-22 --pass-pipeline=\"builtin.module("
     "func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),"
     "convert-elementwise-to-linalg,"
     "one-shot-bufferize{bufferize-function-boundaries},"
     "convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,"
     "lower-affine,convert-arith-to-apfloat,finalize-memref-to-llvm,"
     "convert-math-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,"
     "convert-func-to-llvm,convert-index-to-llvm,reconcile-unrealized-casts)\""))
apfloat_lib = os.path.join(llvm_lib, "libmlir_apfloat_wrappers.so")
config.substitutions.append(
    ("%fp8_upstream_run",
     "mlir-runner-22 -e main -entry-point-result=void -shared-libs="
     + ",".join(runner_libs + [apfloat_lib])))
config.substitutions.append(
    ("%upstream_run",
     "mlir-runner-22 -e main -entry-point-result=void -shared-libs="
     + ",".join(runner_libs)))

# Data-parallel runs: Debian's Open MPI launches the ranks, the runtime's MPI
# transport (libamprt_mpi.so) is built when MPI was found. %mpirun N starts
# N ranks on this machine (as root in containers, more ranks than cores).
# The sanitizer build skips them: Open MPI's own allocations are not the
# runtime's to answer for, and the collectives' code runs there through the
# unit tests.
if shutil.which("mpirun") and os.path.exists(os.path.join(amp_lib, "libamprt_mpi.so")):
    config.available_features.add("mpi")
config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
# Containers without ptrace between processes: no single-copy transfers.
config.environment["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
# One OpenMP thread per rank: ranks times threads must not exceed the cores,
# or spinning OpenMP workers of one rank stall the others (30x slower here).
config.substitutions.append(("%mpirun", "mpirun --oversubscribe -x OMP_NUM_THREADS=1 -np"))
