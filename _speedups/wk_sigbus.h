/* Read a mapped file without dying of SIGBUS.
 *
 * A page of a mapping past the end of its file (the file was truncated after it was
 * mapped) or on a device that fails gives SIGBUS when it is read, and by default the
 * process dies. wk_bus_guard runs fn(a, b, n) with a SIGBUS handler armed for
 * [lo, lo + len) in this thread: a fault there returns -1 from wk_bus_guard (what fn
 * was doing is abandoned); any other SIGBUS goes to the handler that was there before
 * (Python's faulthandler, say), or kills the process as it would have.
 *
 * The handler is installed by wk_bus_install (with the GIL held), again whenever
 * another one replaced it.
 */
#ifndef WK_SIGBUS_H
#define WK_SIGBUS_H

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

typedef void (*wk_fill_fn)(void *a, void *b, Py_ssize_t n);

typedef struct {
    sigjmp_buf jb;
    const char *lo;
    const char *hi;
} wk_bus_frame;

/* Armed while this thread reads a mapping. (initial-exec: the handler reads it without
 * __tls_get_addr, which may allocate, and nothing that allocates is safe in a handler.) */
static __thread wk_bus_frame *wk_bus_top __attribute__((tls_model("initial-exec")));
static struct sigaction wk_bus_prev;

static void wk_bus_handler(int sig, siginfo_t *info, void *uctx)
{
    wk_bus_frame *f = wk_bus_top;
    struct sigaction dfl;

    if (f != NULL && info != NULL && (const char *)info->si_addr >= f->lo
            && (const char *)info->si_addr < f->hi)
        siglongjmp(f->jb, 1);
    if (wk_bus_prev.sa_flags & SA_SIGINFO) {
        if (wk_bus_prev.sa_sigaction != NULL) {
            wk_bus_prev.sa_sigaction(sig, info, uctx);
            return;
        }
    } else if (wk_bus_prev.sa_handler != SIG_DFL && wk_bus_prev.sa_handler != SIG_IGN) {
        wk_bus_prev.sa_handler(sig);
        return;
    }
    /* Not ours, and nobody else's: die of it, as without this handler. */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

/* Install the handler unless it is the one installed; 0 on success. */
static int wk_bus_install(void)
{
    struct sigaction now, act;

    if (sigaction(SIGBUS, NULL, &now) != 0)
        return -1;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == wk_bus_handler)
        return 0;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = wk_bus_handler;
    /* (NODEFER: SIGBUS stays unblocked when the handler jumps out of itself) */
    act.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&act.sa_mask);
    if (sigaction(SIGBUS, &act, NULL) != 0)
        return -1;
    wk_bus_prev = now;
    return 0;
}

/* fn(a, b, n) with faults in [lo, lo + len) caught: 0 it returned, -1 it faulted there. */
static int wk_bus_guard(wk_fill_fn fn, void *a, void *b, Py_ssize_t n, const void *lo, size_t len)
{
    wk_bus_frame frame;
    wk_bus_frame *volatile outer = wk_bus_top;

    frame.lo = (const char *)lo;
    frame.hi = (const char *)lo + len;
    if (sigsetjmp(frame.jb, 0)) {
        wk_bus_top = outer;
        return -1;
    }
    wk_bus_top = &frame;
    fn(a, b, n);
    wk_bus_top = outer;
    return 0;
}

#endif
