# libdeflate's API (``include "_libdeflate.pxi"``), declared in wk_libdeflate.h: the
# system library linked at build time, or (built without libdeflate's header) the
# libdeflate inside the deflate package, bound when this module is imported. See
# docs/building.rst. A module that cannot bind raises ImportError, so warckit uses its
# pure twin and warckit._speedups reports why.

cdef extern from "wk_libdeflate.h" nogil:
    struct libdeflate_compressor:
        pass
    struct libdeflate_decompressor:
        pass
    libdeflate_compressor* libdeflate_alloc_compressor(int level)
    size_t libdeflate_deflate_compress(libdeflate_compressor* c, const void* src, size_t n,
                                       void* dst, size_t cap)
    size_t libdeflate_deflate_compress_bound(libdeflate_compressor* c, size_t n)
    void libdeflate_free_compressor(libdeflate_compressor* c)
    unsigned int libdeflate_crc32(unsigned int crc, const void* buf, size_t n)
    libdeflate_decompressor* libdeflate_alloc_decompressor()
    void libdeflate_free_decompressor(libdeflate_decompressor* d)
    int libdeflate_gzip_decompress_ex(libdeflate_decompressor* d, const void* src, size_t n,
                                      void* out, size_t cap, size_t* in_used, size_t* out_used)
    int LIBDEFLATE_SUCCESS
    int WK_LIBDEFLATE_DLSYM
    const char* WK_LIBDEFLATE_HEADER_VERSION
    int wk_libdeflate_bind(const char* path, char* err, size_t errlen)


def _bind_libdeflate():
    """Bind libdeflate when the build found no header; return a line saying which."""
    cdef char err[512]
    if not WK_LIBDEFLATE_DLSYM:
        return f"libdeflate {WK_LIBDEFLATE_HEADER_VERSION.decode()} (system library)"
    import os
    import deflate
    from deflate import _deflate

    if wk_libdeflate_bind(os.fsencode(_deflate.__file__), err, sizeof(err)) != 0:
        raise ImportError(
            f"cannot use the libdeflate of the deflate package: {err.decode(errors='replace')}")
    return f"libdeflate (from deflate {deflate.__version__})"


#: Which libdeflate this module calls.
LIBDEFLATE_LIBRARY = _bind_libdeflate()
