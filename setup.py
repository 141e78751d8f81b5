"""Build the optional Cython extensions; all other metadata lives in pyproject.toml.

gzipmember inflates with ISA-L and libdeflate, blockdeflate compresses with libdeflate.
Each library comes from the system when its development files are found (Debian/Ubuntu:
libisal-dev, libdeflate-dev), else from the isal and deflate packages warckit depends on:
the module is then built without the library's headers and binds its functions when it
is imported (_speedups/wk_dl.h; docs/building.rst says why). WARCKIT_SYSTEM_LIBS chooses:
unset or "auto" probes, "0" never uses the system libraries, "1" requires them. "auto"
declines a system library older than its floor in OLDEST (the package's copy is faster).

A module that fails to compile is skipped (its pure twin is used): the build prints a
warning naming it and the reason, and writes warckit/_speedups/_build.json, which
``warckit --version`` and ``warckit._speedups.implementations()`` report from.
"""
import glob
import json
import os
import re
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError, LinkError

#: The C libraries each module needs; a probe (header, function, -l name) per library.
NEEDS = {"gzipmember": ["isal", "libdeflate"], "blockdeflate": ["libdeflate"]}
#: Modules that bind functions with dlsym whatever the build found (verifyfast: OpenSSL's SHA1).
BINDS = {"verifyfast"}
PROBES = {
    "isal": ("isa-l/igzip_lib.h", "isal_inflate_init", "isal"),
    "libdeflate": ("libdeflate.h", "libdeflate_alloc_decompressor", "deflate"),
}
#: The oldest system copy "auto" uses, and its version macros: libdeflate 1.20 made CRC-32
#: (a third of inflating a small gzip member) faster on x86 with VPCLMULQDQ; linked to
#: Debian 12's 1.14, reading the #19 corpora took 1.03-1.06x the time of the deflate
#: package's 1.25 (one CPU).
OLDEST = {"libdeflate": ((1, 20), "LIBDEFLATE_VERSION_MAJOR", "LIBDEFLATE_VERSION_MINOR")}
MACROS = {"isal": "WK_ISAL_DLSYM", "libdeflate": "WK_LIBDEFLATE_DLSYM"}
WHEELS = {"isal": "the isal package", "libdeflate": "the deflate package"}
REPORT = os.path.join("warckit", "_speedups", "_build.json")


def _reason(exc):
    """A short reason for a failed build (the compiler's own messages were printed above it)."""
    text = str(exc)
    match = re.search(r"Command '\['([^']*)'.*'-c', '([^']*)'.*exit status (-?\d+)", text)
    if match:
        compiler, source, status = match.groups()
        text = f"{compiler} exited with status {status} compiling {source}"
    text = f"{type(exc).__name__}: {text}"
    return text if len(text) <= 300 else text[:297] + "..."


def _say(message):
    print(f"warckit: {message}", file=sys.stderr, flush=True)


class BuildExt(build_ext):
    """build_ext that picks each C library's source, and reports what it built."""

    def build_extensions(self):
        self._sources = self._pick_libraries()
        self._optimization = self._pick_optimization()
        self._failed = {}
        for ext in self.extensions:
            self._configure(ext)
        try:
            super().build_extensions()
        finally:
            self._report()

    def _pick_libraries(self):
        choice = os.environ.get("WARCKIT_SYSTEM_LIBS", "auto").strip().lower() or "auto"
        if choice not in ("auto", "0", "1"):
            raise SystemExit(f"WARCKIT_SYSTEM_LIBS must be auto, 0 or 1, not {choice!r}")
        sources = {}
        self._declined = {}
        for lib, (header, func, name) in PROBES.items():
            found = choice != "0" and self._probe(header, func, name)
            if choice == "1" and not found:
                raise SystemExit(f"WARCKIT_SYSTEM_LIBS=1 but {header} / -l{name} do not compile and link here")
            if found and choice == "auto" and lib in OLDEST:
                (major, minor), mmacro, nmacro = OLDEST[lib]
                older = (f"#if {mmacro} < {major} || ({mmacro} == {major} && {nmacro} < {minor})\n"
                         f"#error older\n#endif\n")
                if not self._probe(header, func, name, older):
                    found = False
                    self._declined[lib] = f"the system {lib} is older than {major}.{minor}"
                    _say(f"{self._declined[lib]}: using {WHEELS[lib]}'s copy (faster)")
            sources[lib] = "system" if found else "package"
        self._needs_ldl = sys.platform.startswith("linux") and not self._probe(None, "dlopen", None)
        return sources

    def _pick_optimization(self):
        """The -O option the modules are compiled with (None: not a Unix compiler).

        Quirk: a CFLAGS in the environment replaces Python's own compile flags, its -O3
        among them (setuptools' customize_compiler), so CFLAGS=-I/opt/include built
        unoptimized modules, 1.4x slower. Without an -O of the user's, -O3 is added.
        """
        if self.compiler.compiler_type != "unix":
            return None
        given = [arg for arg in self.compiler.compiler_so if arg.startswith("-O")]
        return given[-1] if given else "-O3"

    def _probe(self, header, func, library, check=""):
        """True if a program that includes *header* (then *check*) and calls *func*
        compiles and links."""
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w") as f:
                if header:
                    f.write(f"#include <{header}>\n")
                f.write(check)
                f.write(f"void *wk_probe(void) {{ return (void *)&{func}; }}\n"
                        "int main(void) { return wk_probe() == 0; }\n")
            saved = os.dup(2)  # the compiler's complaints about a missing header are expected
            try:
                with open(os.devnull, "w") as null:
                    os.dup2(null.fileno(), 2)
                objs = self.compiler.compile([src], output_dir=tmp, include_dirs=self.include_dirs or [])
                self.compiler.link_executable(objs, "probe", output_dir=tmp,
                                              libraries=[library] if library else [],
                                              library_dirs=self.library_dirs or [])
            except (CompileError, LinkError):
                return False
            finally:
                os.dup2(saved, 2)
                os.close(saved)
        return True

    def _configure(self, ext):
        name = ext.name.rsplit(".", 1)[-1][1:-2]  # warckit._speedups._NAME_c
        if "_speedups" not in ext.include_dirs:
            ext.include_dirs.append("_speedups")
        # A stamp per module whose content is its libraries' sources: switching
        # WARCKIT_SYSTEM_LIBS rebuilds the module (define_macros alone would not).
        wanted = ",".join(f"{lib}={self._sources[lib]}" for lib in NEEDS.get(name, []))
        stamp = os.path.join(self.build_temp, f"wk-{name}.libs")
        os.makedirs(self.build_temp, exist_ok=True)
        try:
            with open(stamp) as f:
                same = f.read() == wanted
        except OSError:
            same = False
        if not same:
            with open(stamp, "w") as f:
                f.write(wanted)
        ext.depends.append(stamp)
        if self._optimization and self._optimization not in self.compiler.compiler_so:
            ext.extra_compile_args.append(self._optimization)
        for lib in NEEDS.get(name, []):
            system = self._sources[lib] == "system"
            ext.define_macros.append((MACROS[lib], "0" if system else "1"))
            if system:
                ext.libraries.append(PROBES[lib][2])
            elif self._needs_ldl and "dl" not in ext.libraries:
                ext.libraries.append("dl")
        if name in BINDS and self._needs_ldl and "dl" not in ext.libraries:
            ext.libraries.append("dl")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:
            name = ext.name.rsplit(".", 1)[-1][1:-2]
            self._failed[name] = _reason(exc)
            raise  # setuptools skips an optional extension, and says so with -v

    def _modules(self):
        return {ext.name.rsplit(".", 1)[-1][1:-2]: ext for ext in self.extensions}

    def _report(self):
        modules = {}
        for name in sorted(self._modules()):
            libs = {lib: self._sources[lib] for lib in NEEDS.get(name, [])}
            entry = {"built": name not in self._failed, "libraries": libs, "optimization": self._optimization}
            declined = {lib: why for lib, why in self._declined.items() if lib in libs}
            if declined:
                entry["declined"] = declined
            if name in self._failed:
                entry["reason"] = self._failed[name]
            modules[name] = entry
        for name, entry in modules.items():
            if not entry["built"]:
                _say(f"WARNING: the compiled {name} module was not built ({entry['reason']}); "
                     f"warckit will use its pure-Python twin, which is slower. See docs/building.rst.")
            elif entry["libraries"]:
                where = ", ".join(
                    f"{lib}: {'system library' if src == 'system' else WHEELS[lib] + ' (bound at import)'}"
                    for lib, src in entry["libraries"].items())
                _say(f"compiled {name} ({where})")
        # setuptools builds into build_lib even with --inplace (or pip install -e), then
        # copies the outputs into the source tree (copy_extensions_to_source below).
        target = os.path.join(self.build_lib, REPORT)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            json.dump({"modules": modules}, f, indent=1, sort_keys=True)
            f.write("\n")

    def copy_extensions_to_source(self):
        super().copy_extensions_to_source()
        self.copy_file(os.path.join(self.build_lib, REPORT), REPORT, level=self.verbose)

    def _get_output_mapping(self):
        yield from super()._get_output_mapping()
        if self.inplace:
            yield os.path.join(self.build_lib, REPORT), REPORT

    def get_outputs(self):
        outputs = super().get_outputs()
        return outputs if self.inplace else [*outputs, os.path.join(self.build_lib, REPORT)]


ext_modules = []
if not os.environ.get("WARCKIT_NO_EXTENSIONS") and sys.implementation.name == "cpython":
    from Cython.Build import cythonize

    names = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob("_speedups/*.pyx"))
    ext_modules = cythonize(
        [
            Extension(f"warckit._speedups._{n}_c", [f"_speedups/{n}.pyx"],
                      depends=glob.glob("_speedups/*.pxi") + glob.glob("_speedups/*.h"))
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

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildExt})
