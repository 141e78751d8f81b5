"""Build the optional Cython extensions; all other metadata lives in pyproject.toml."""
import glob
import os
import sys

from setuptools import Extension, setup

ext_modules = []
if not os.environ.get("WARCKIT_NO_EXTENSIONS") and sys.implementation.name == "cpython":
    from Cython.Build import cythonize

    names = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob("_speedups/*.pyx"))
    # gzipmember inflates with ISA-L's C library (Debian/Ubuntu: libisal-dev), and its
    # read-ahead thread small members with libdeflate's (libdeflate-dev); blockdeflate
    # compresses with libdeflate. Without a library that extension fails to compile
    # and its pure twin is used.
    libraries = {"gzipmember": ["isal", "deflate"], "blockdeflate": ["deflate"]}
    ext_modules = cythonize(
        [
            Extension(f"warckit._speedups._{n}_c", [f"_speedups/{n}.pyx"], libraries=libraries.get(n, []),
                      depends=glob.glob("_speedups/*.pxi"))
            for n in names
        ],
        compiler_directives={
            "language_level": "3",
            "boundscheck": bool(os.environ.get("WARCKIT_DEBUG")),
            "wraparound": False,
        },
    )
    for ext in ext_modules:
        # cythonize() drops optional=True, so set it afterwards: a failed C compile
        # skips the extension instead of failing the install (pure twins are used).
        ext.optional = True

setup(ext_modules=ext_modules)
