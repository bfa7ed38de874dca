# lit configuration for Oxide: dialect tests through oxide-opt, LLVM pass tests through opt with
# the OxidePasses plugin, compiler tests through oxcc.
import os
import lit.formats

config.name = "Oxide"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".ll", ".cpp", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.oxide_obj_root, "tests", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.oxide_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
# Tests see a deterministic environment: no colours, no user overrides of the toolchain.
for var in ("OXIDE_PTXAS", "OXIDE_CUDA_PATH", "OXIDE_DEVICE"):
    config.environment.pop(var, None)
# oxcc's object cache and `oxcc run`'s executables go under the build tree, never into the
# user's ~/.cache; tests that depend on what the cache holds use one of their own in %t.
for var in ("OXCC_NO_CACHE", "OXCC_DUMP_DIR", "OXCC_NO_PCH"):
    config.environment.pop(var, None)
config.environment["OXCC_CACHE_DIR"] = os.path.join(config.test_exec_root, "Output", "oxcc-cache")
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "Output", "xdg-cache")
config.substitutions.append(("%examples", os.path.join(config.oxide_src_root, "examples")))
config.substitutions.append(("%oxide_include", os.path.join(config.oxide_src_root, "include")))
# The LLVM passes of compiler/passes/ for opt: -load-pass-plugin=%oxide_passes (tests/lit/passes).
config.substitutions.append(("%oxide_passes", os.path.join(config.oxide_obj_root, "lib", "OxidePasses.so")))

# Whether this machine has an NVIDIA driver decides what running a built program does.
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    config.available_features.add("no-cuda-driver")

# A pseudo-terminal through util-linux `script`, for what oxcc shows only on a terminal (the
# progress line). Containers without /dev/pts cannot open one: those tests are then unsupported.
import shutil, subprocess
if shutil.which("script"):
    try:
        tty = subprocess.run(["script", "-qec", "test -t 2 && echo terminal", "/dev/null"],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=20)
        if tty.returncode == 0 and "terminal" in tty.stdout:
            config.available_features.add("pty")
    except (OSError, subprocess.TimeoutExpired):
        pass

# clangd 22 beside the LLVM tools (scripts/install-deps.sh installs it), for the editor tests.
config.substitutions.append(("%llvm_tools_dir", config.llvm_tools_dir))
if os.access(os.path.join(config.llvm_tools_dir, "clangd"), os.X_OK):
    config.available_features.add("clangd")

# LLVM's linker beside the LLVM tools: oxcc links with it (scripts/install-deps.sh installs it).
if os.access(os.path.join(config.llvm_tools_dir, "ld.lld"), os.X_OK):
    config.available_features.add("lld")
