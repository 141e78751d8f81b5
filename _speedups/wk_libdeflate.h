/* libdeflate's API as gzipmember and blockdeflate use it (include "_libdeflate.pxi").
 *
 * WK_LIBDEFLATE_DLSYM=0 (setup.py found libdeflate's header and library): the system
 * header, linked with -ldeflate. WK_LIBDEFLATE_DLSYM=1: no header needed; the types are
 * opaque and the functions are declared here as libdeflate 1.x declares them (a stable
 * ABI: libdeflate.so.0 since 1.0), and wk_libdeflate_bind() points them at the
 * libdeflate inside the deflate package (its _deflate extension exports them) when the
 * module is imported.
 */
#ifndef WK_LIBDEFLATE_H
#define WK_LIBDEFLATE_H

#include <stddef.h>
#include <stdint.h>

#ifndef WK_LIBDEFLATE_DLSYM
#define WK_LIBDEFLATE_DLSYM 0
#endif

#if !WK_LIBDEFLATE_DLSYM

#include <libdeflate.h>
#define WK_LIBDEFLATE_HEADER_VERSION LIBDEFLATE_VERSION_STRING

static int wk_libdeflate_bind(const char *path, char *err, size_t errlen)
{
    (void)path; (void)err; (void)errlen;
    return 0; /* linked at build time */
}

#else /* WK_LIBDEFLATE_DLSYM */

#include "wk_dl.h"

#define WK_LIBDEFLATE_HEADER_VERSION ""

struct libdeflate_compressor;
struct libdeflate_decompressor;
enum libdeflate_result {
    LIBDEFLATE_SUCCESS = 0,
    LIBDEFLATE_BAD_DATA = 1,
    LIBDEFLATE_SHORT_OUTPUT = 2,
    LIBDEFLATE_INSUFFICIENT_SPACE = 3,
};

static struct libdeflate_compressor *(*wk_ld_alloc_compressor)(int);
static size_t (*wk_ld_deflate_compress)(struct libdeflate_compressor *, const void *, size_t,
                                        void *, size_t);
static size_t (*wk_ld_deflate_compress_bound)(struct libdeflate_compressor *, size_t);
static void (*wk_ld_free_compressor)(struct libdeflate_compressor *);
static struct libdeflate_decompressor *(*wk_ld_alloc_decompressor)(void);
static void (*wk_ld_free_decompressor)(struct libdeflate_decompressor *);
static enum libdeflate_result (*wk_ld_gzip_decompress_ex)(struct libdeflate_decompressor *,
                                                          const void *, size_t, void *, size_t,
                                                          size_t *, size_t *);
static uint32_t (*wk_ld_crc32)(uint32_t, const void *, size_t);

#define libdeflate_alloc_compressor(level) wk_ld_alloc_compressor(level)
#define libdeflate_deflate_compress(c, src, n, dst, cap) wk_ld_deflate_compress(c, src, n, dst, cap)
#define libdeflate_deflate_compress_bound(c, n) wk_ld_deflate_compress_bound(c, n)
#define libdeflate_free_compressor(c) wk_ld_free_compressor(c)
#define libdeflate_alloc_decompressor() wk_ld_alloc_decompressor()
#define libdeflate_free_decompressor(d) wk_ld_free_decompressor(d)
#define libdeflate_gzip_decompress_ex(d, src, n, out, cap, in_used, out_used) \
    wk_ld_gzip_decompress_ex(d, src, n, out, cap, in_used, out_used)
#define libdeflate_crc32(crc, buf, n) wk_ld_crc32(crc, buf, n)

static int wk_libdeflate_bind(const char *path, char *err, size_t errlen)
{
    static const char *const names[] = {
        "libdeflate_alloc_compressor", "libdeflate_deflate_compress",
        "libdeflate_deflate_compress_bound", "libdeflate_free_compressor",
        "libdeflate_alloc_decompressor", "libdeflate_free_decompressor",
        "libdeflate_gzip_decompress_ex", "libdeflate_crc32",
    };
    void *fns[8];
    if (wk_dl_bind(path, names, fns, 8, err, errlen) != 0)
        return -1;
    memcpy(&wk_ld_alloc_compressor, &fns[0], sizeof(void *));
    memcpy(&wk_ld_deflate_compress, &fns[1], sizeof(void *));
    memcpy(&wk_ld_deflate_compress_bound, &fns[2], sizeof(void *));
    memcpy(&wk_ld_free_compressor, &fns[3], sizeof(void *));
    memcpy(&wk_ld_alloc_decompressor, &fns[4], sizeof(void *));
    memcpy(&wk_ld_free_decompressor, &fns[5], sizeof(void *));
    memcpy(&wk_ld_gzip_decompress_ex, &fns[6], sizeof(void *));
    memcpy(&wk_ld_crc32, &fns[7], sizeof(void *));
    return 0;
}

#endif /* WK_LIBDEFLATE_DLSYM */

#endif /* WK_LIBDEFLATE_H */
