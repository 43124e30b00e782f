"""Build the C extension ``qtheory.sim._core`` against NumPy's headers and random C API.

The simulator draws every random number from a NumPy bit generator (``bitgen_t``) and
uses NumPy's own distribution kernels from the static library ``npyrandom`` that ships
with NumPy, so no random number generator is written by hand.
"""

import sys
from pathlib import Path

import numpy as np
from setuptools import Extension, setup

numpy_random_lib = Path(np.get_include()).parent.parent / "random" / "lib"

# Only PyInit__core is exported (-fvisibility=hidden; PyMODINIT_FUNC marks it default):
# the calls between the sources, and (GNU linkers: --exclude-libs) into npyrandom's
# kernels, then bind inside the extension and go direct instead of through the PLT
# (random_standard_exponential is called once per simulated event).
link_args = ["-Wl,--exclude-libs,ALL"] if sys.platform.startswith("linux") else []

core = Extension(
    "qtheory.sim._core",
    sources=sorted(str(p) for p in Path("qtheory/sim/src").glob("*.c")),
    include_dirs=[np.get_include(), "qtheory/sim/src"],
    library_dirs=[str(numpy_random_lib)],
    libraries=["npyrandom", "m"],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
    extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-fvisibility=hidden"],
    extra_link_args=link_args,
)

setup(ext_modules=[core])
