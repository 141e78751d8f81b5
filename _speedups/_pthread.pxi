# POSIX threads, as the compiled modules with a native worker thread use them
# (``include "_pthread.pxi"``; Cython ships no declarations of its own).

cdef extern from "<pthread.h>" nogil:
    ctypedef struct pthread_t:
        pass
    ctypedef struct pthread_mutex_t:
        pass
    ctypedef struct pthread_cond_t:
        pass
    int pthread_mutex_init(pthread_mutex_t* m, void* attr)
    int pthread_mutex_destroy(pthread_mutex_t* m)
    int pthread_mutex_lock(pthread_mutex_t* m)
    int pthread_mutex_unlock(pthread_mutex_t* m)
    int pthread_mutex_trylock(pthread_mutex_t* m)
    int pthread_cond_init(pthread_cond_t* c, void* attr)
    int pthread_cond_destroy(pthread_cond_t* c)
    int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m)
    int pthread_cond_signal(pthread_cond_t* c)
    int pthread_cond_broadcast(pthread_cond_t* c)
    int pthread_create(pthread_t* t, void* attr, void* (*f)(void*) noexcept nogil, void* arg)
    int pthread_join(pthread_t t, void** ret)
