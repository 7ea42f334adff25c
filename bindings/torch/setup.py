"""Builds shmcomm_torch: the C++ extension (torch.utils.cpp_extension) against the torch
installed here, linked to libshmcomm, which the package carries (rpath $ORIGIN).

The library is taken from SHMCOMM_BUILD (a shmcomm build directory), else from the build
directory of the source tree this file is in (../../build), which it builds if needed.
The build needs the torch it is for: `pip install --no-build-isolation ./bindings/torch`."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_ext import build_ext as _build_ext
from torch.utils.cpp_extension import BuildExtension, CppExtension

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
BUILD = os.path.abspath(os.environ.get("SHMCOMM_BUILD", os.path.join(ROOT, "build")))
LIBDIR = os.path.join(BUILD, "lib")
SONAME = "libshmcomm.so.0"


def _library():
    if not os.path.exists(os.path.join(LIBDIR, SONAME)):
        if not os.path.exists(os.path.join(ROOT, "Makefile")):
            raise SystemExit(f"shmcomm_torch: no {SONAME} in {LIBDIR}; set SHMCOMM_BUILD")
        subprocess.check_call(["make", "-C", ROOT, "lib", f"BUILD={BUILD}"])


class build_ext(BuildExtension):
    def run(self):
        _library()
        super().run()
        # The package carries the library next to the extension.
        for ext in self.extensions:
            dest = os.path.dirname(self.get_ext_fullpath(ext.name))
            os.makedirs(dest, exist_ok=True)
            shutil.copy2(os.path.join(LIBDIR, SONAME), os.path.join(dest, SONAME))


ext = CppExtension(
    "shmcomm_torch._C",
    sources=[os.path.join("csrc", f) for f in ("module.cpp", "backend.cpp", "engine.cpp",
                                                  "exchange.cpp", "hosts.cpp", "work.cpp",
                                                  "tensors.cpp")],
    include_dirs=[os.path.join(ROOT, "include")],
    library_dirs=[LIBDIR],
    libraries=[":" + SONAME],
    extra_compile_args=["-O2", "-Wall"],
    extra_link_args=["-Wl,-rpath,$ORIGIN"],
)

setup(
    name="shmcomm_torch",
    version="0.1.0",
    description="torch.distributed backend 'shmc' over the shmcomm shared-memory library",
    packages=["shmcomm_torch"],
    ext_modules=[ext],
    cmdclass={"build_ext": build_ext},
    zip_safe=False,
)
