# What the GPU bundles of the random-graph and zoo tests share: the size a
# device call carries, and naming the GPU a run happened on.
import os
import shutil
import subprocess

DEVICE_CALL_LIMIT = 64 << 20


def check_size(folder):
    """Prints the bundle's size; False (with an error) when a device call
    cannot carry it."""
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(folder)
               for f in files)
    print(f"bundle: {folder} ({size // 1024} KiB)")
    if size >= DEVICE_CALL_LIMIT:
        print("error: the bundle is over the 64 MiB a device call carries")
        return False
    return True


def gpu_machine():
    """The GPU's name and driver version from nvidia-smi, or ''."""
    if not shutil.which("nvidia-smi"):
        return ""
    return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                           "--format=csv,noheader"], capture_output=True,
                          text=True).stdout.strip()
