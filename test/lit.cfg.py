# lit configuration for kiln's regression tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "KILN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

llvm_config.with_system_environment(["HOME", "TMPDIR", "PATH"])
llvm_config.with_environment("PATH", config.kiln_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# The venv python (onnx, numpy) that generates ONNX models at test time.
venv_python = os.environ.get(
    "KILN_PYTHON", os.path.join(config.kiln_src_root, ".venv", "bin", "python"))
config.substitutions.append(("%python", venv_python))
config.substitutions.append(("%kiln_src", config.kiln_src_root))
# %{exit_status} COMMAND...: the command's output, then `exit status: N`;
# %exit N COMMAND...: the output, failing unless the command exits N (the
# tools' exit codes, tools/common/ExitCodes.h).
import sys
_exit_status = sys.executable + " " + os.path.join(
    config.kiln_src_root, "test", "Inputs", "exit_status.py")
config.substitutions.append(("%{exit_status}", _exit_status))
config.substitutions.append(("%exit", _exit_status + " --expect"))
config.substitutions.append(("%gen", venv_python + " " + os.path.join(
    config.kiln_src_root, "test", "Inputs", "gen_model.py")))
# Hostile models for the reliability tests (test/Inputs/hostile_models.py).
config.substitutions.append(("%hostile", venv_python + " " + os.path.join(
    config.kiln_src_root, "test", "Inputs", "hostile_models.py")))

# Tests of the no-device paths are unsupported where a CUDA device is present.
import shutil
import subprocess
if shutil.which("nvidia-smi") and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0:
    config.available_features.add("cuda-device")

# cuobjdump (the CUDA toolkit's) disassembles cubins: the kernel-program tests
# compare each kernel's SASS with it.
_cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
if os.path.exists(_cuobjdump):
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%cuobjdump", _cuobjdump))

tools = ["kiln-opt", "kiln-compile", "kiln-interpret", "kiln-translate", "kiln-run",
         "kiln-inspect", "kiln-kernel-test", "kiln-probe-wgmma-gemm", "FileCheck",
         "not", "count"]
llvm_config.add_tool_substitutions(tools, [config.kiln_tools_dir, config.llvm_tools_dir])
