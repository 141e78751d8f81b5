/* ISA-L's inflate API as gzipmember uses it (include "_isal.pxi").
 *
 * WK_ISAL_DLSYM=0 (setup.py found ISA-L's headers and library): the system header,
 * linked with -lisal. WK_ISAL_DLSYM=1: no headers needed; struct inflate_state and the
 * three functions are declared here, and wk_isal_bind() points the functions at the
 * ISA-L inside the isal package (its igzip_lib extension exports them) when the module
 * is imported. The declared layout is the one ISA-L 2.24 to 2.32.1 share on LP64
 * platforms (checked against each release's include/igzip_lib.h): ISA-L keeps it as
 * part of the libisal.so.2 ABI, which is why _isal.pxi accepts ISA-L 2.24 <= v < 3.
 * wk_isal_layout_matches tells a headers build whether the system header agrees
 * (tests/speedups/test_build.py checks it in CI's headers legs).
 */
#ifndef WK_ISAL_H
#define WK_ISAL_H

#include <stddef.h>
#include <stdint.h>

#ifndef WK_ISAL_DLSYM
#define WK_ISAL_DLSYM 0
#endif

#define WK_STR_(x) #x
#define WK_STR(x) WK_STR_(x)

/* struct inflate_state on LP64 in ISA-L 2.24-2.32.1: size and the offsets read here. */
#define WK_INFLATE_STATE_SIZE 87368
#define WK_INFLATE_BLOCK_STATE_AT 21160
#define WK_INFLATE_CRC_FLAG_AT 21172
#define WK_INFLATE_TMP_IN_SIZE_AT 21206

#if !WK_ISAL_DLSYM

#include <isa-l/igzip_lib.h>
#if defined(__has_include)
#if __has_include(<isa-l.h>)
#include <isa-l.h>
#endif
#endif
#ifdef ISAL_MAJOR_VERSION
#define WK_ISAL_HEADER_VERSION \
    WK_STR(ISAL_MAJOR_VERSION) "." WK_STR(ISAL_MINOR_VERSION) "." WK_STR(ISAL_PATCH_VERSION)
#else
#define WK_ISAL_HEADER_VERSION "2 (no isa-l.h)"
#endif

static int wk_isal_bind(const char *path, char *err, size_t errlen)
{
    (void)path; (void)err; (void)errlen;
    return 0; /* linked at build time */
}

#else /* WK_ISAL_DLSYM */

#if !(defined(__LP64__) || defined(_LP64))
#error "struct inflate_state is declared for LP64 platforms only: install ISA-L's headers"
#endif
#include "wk_dl.h"

#define WK_ISAL_HEADER_VERSION ""

enum isal_block_state { ISAL_BLOCK_FINISH = 5 };  /* the one state gzipmember tests */
#define ISAL_GZIP 1                               /* crc_flag: gzip wrapper */

struct inflate_state {
    uint8_t *next_out;
    uint32_t avail_out;
    uint32_t total_out;
    uint8_t *next_in;
    uint64_t read_in;
    uint32_t avail_in;
    int32_t read_in_length;
    uint32_t wk_huff_codes[5280];  /* lit_huff_code and dist_huff_code: 21120 bytes */
    enum isal_block_state block_state;
    uint32_t dict_length;
    uint32_t bfinal;
    uint32_t crc_flag;
    uint32_t crc;
    uint32_t hist_bits;
    int32_t type0_block_len;       /* a union with count and dict_id */
    int32_t write_overflow_lits;
    int32_t write_overflow_len;
    int32_t copy_overflow_length;
    int32_t copy_overflow_distance;
    int16_t wrapper_flag;
    int16_t tmp_in_size;
    int32_t tmp_out_valid;
    int32_t tmp_out_processed;
    uint8_t tmp_in_buffer[328];              /* ISAL_DEF_MAX_HDR_SIZE */
    uint8_t tmp_out_buffer[2 * 32768 + 288]; /* 2 * ISAL_DEF_HIST_SIZE + ISAL_LOOK_AHEAD */
};

static void (*wk_isal_inflate_init)(struct inflate_state *);
static void (*wk_isal_inflate_reset)(struct inflate_state *);
static int (*wk_isal_inflate)(struct inflate_state *);
#define isal_inflate_init(s) wk_isal_inflate_init(s)
#define isal_inflate_reset(s) wk_isal_inflate_reset(s)
#define isal_inflate(s) wk_isal_inflate(s)

static int wk_isal_bind(const char *path, char *err, size_t errlen)
{
    static const char *const names[] = {"isal_inflate_init", "isal_inflate_reset", "isal_inflate"};
    void *fns[3];
    if (wk_dl_bind(path, names, fns, 3, err, errlen) != 0)
        return -1;
    memcpy(&wk_isal_inflate_init, &fns[0], sizeof(void *));
    memcpy(&wk_isal_inflate_reset, &fns[1], sizeof(void *));
    memcpy(&wk_isal_inflate, &fns[2], sizeof(void *));
    return 0;
}

#endif /* WK_ISAL_DLSYM */

#if defined(__LP64__) || defined(_LP64)
static const int wk_isal_layout_matches =
    sizeof(struct inflate_state) == WK_INFLATE_STATE_SIZE
    && offsetof(struct inflate_state, block_state) == WK_INFLATE_BLOCK_STATE_AT
    && offsetof(struct inflate_state, crc_flag) == WK_INFLATE_CRC_FLAG_AT
    && offsetof(struct inflate_state, tmp_in_size) == WK_INFLATE_TMP_IN_SIZE_AT
    && offsetof(struct inflate_state, read_in_length) == 36
    && sizeof(enum isal_block_state) == 4 && ISAL_BLOCK_FINISH == 5 && ISAL_GZIP == 1;
#else
static const int wk_isal_layout_matches = 0;
#endif

#endif /* WK_ISAL_H */
