/* Bind C functions that an already-loaded shared object exports.
 *
 * Used when warckit is built without ISA-L's or libdeflate's development files
 * (see docs/building.rst): gzipmember and blockdeflate then call the copies of those
 * libraries inside the isal and deflate packages, whose extension modules export the
 * C symbols. The module is imported from Python first; dlopen(RTLD_NOLOAD) then only
 * returns a handle to that loaded copy (it never loads a second one), and dlsym looks
 * each name up in it and its dependencies (a dynamically linked isal finds libisal.so.2).
 * Handles stay open: the functions are used until the process exits.
 */
#ifndef WK_DL_H
#define WK_DL_H

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Fill fns[i] with the address of names[i] (count names) exported by the shared object at
 * path; 0 on success, else -1 with a sentence in err. */
static int wk_dl_bind(const char *path, const char *const *names, void **fns, int count,
                      char *err, size_t errlen)
{
    void *handle;
    int i;

    dlerror();
    handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(err, errlen, "%s is not loaded in this process (%s)", path, why ? why : "dlopen failed");
        return -1;
    }
    for (i = 0; i < count; i++) {
        dlerror();
        fns[i] = dlsym(handle, names[i]);
        if (fns[i] == NULL) {
            snprintf(err, errlen, "%s does not export %s", path, names[i]);
            return -1;
        }
    }
    return 0;
}

#endif
