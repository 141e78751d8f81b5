/* Output buffers in one anonymous mapping, backed by huge pages where the kernel has
 * them (Linux, transparent huge pages in "madvise" or "always" mode).
 *
 * A decoder's read-ahead slots are touched whole as soon as it runs, in a fresh
 * process: in 4 KiB pages that is a fault (and a zeroed page) per 4 KiB, about 4,100
 * for the 16 MiB of two gzip lanes (4 % of a headers-only pass over the #19 domain
 * mix, whole process); in 2 MiB pages it is eight. Elsewhere (no mmap, no MADV_HUGEPAGE)
 * the region is plain malloc'ed memory.
 */
#ifndef WK_REGION_H
#define WK_REGION_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#define WK_HUGE ((size_t)2 << 20)

typedef struct {
    void *base;     /* what to release */
    size_t len;     /* its length (0: malloc'ed) */
} wk_region;

/* n bytes, 2 MiB-aligned when n is at least 2 MiB and the system maps anonymous
 * memory; NULL when there is no memory. */
static void *wk_region_alloc(wk_region *r, size_t n)
{
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    if (n >= WK_HUGE) {
        size_t len = n + WK_HUGE;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            char *p = (char *)(((uintptr_t)m + WK_HUGE - 1) & ~(uintptr_t)(WK_HUGE - 1));
            madvise(p, n, MADV_HUGEPAGE);  /* (advice: refused, it stays 4 KiB pages) */
            r->base = m;
            r->len = len;
            return p;
        }
    }
#endif
    r->base = malloc(n);
    r->len = 0;
    return r->base;
}

static void wk_region_free(wk_region *r)
{
    if (r->base == NULL)
        return;
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    if (r->len) {
        munmap(r->base, r->len);
        r->base = NULL;
        return;
    }
#endif
    free(r->base);
    r->base = NULL;
}

#endif
