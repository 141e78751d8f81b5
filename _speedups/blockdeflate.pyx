# cython: language_level=3
"""Raw-deflate compression of whole record blocks with libdeflate, off the GIL.

:class:`Worker` owns one native thread that compresses the blocks handed to it, in
order, without ever taking the GIL: the caller's Python work (hashing, building the
next record) runs on while the worker compresses. :func:`deflate` compresses in the
calling thread (the GIL released). Pure twin: ``warckit/_speedups/_blockdeflate_py.py``.

Built against libdeflate's C library (Debian/Ubuntu: ``libdeflate-dev``).
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdlib cimport free, malloc
from libc.string cimport memset

__all__ = ["MAX_LEVEL", "Job", "Worker", "crc32", "deflate"]

#: Highest libdeflate level.
MAX_LEVEL = 12


cdef extern from "libdeflate.h" nogil:
    struct libdeflate_compressor:
        pass
    libdeflate_compressor* libdeflate_alloc_compressor(int level)
    size_t libdeflate_deflate_compress(libdeflate_compressor* c, const void* src, size_t n,
                                       void* dst, size_t cap)
    size_t libdeflate_deflate_compress_bound(libdeflate_compressor* c, size_t n)
    void libdeflate_free_compressor(libdeflate_compressor* c)
    unsigned int libdeflate_crc32(unsigned int crc, const void* buf, size_t n)


include "_pthread.pxi"


cdef extern from "<unistd.h>" nogil:
    int getpid()


cdef struct job_t:
    const char* src
    size_t n
    char* dst
    size_t out
    unsigned int crc
    int level
    int done          # 0 queued / running, 1 finished (dst valid or NULL: no memory)
    job_t* next


cdef struct shared_t:
    pthread_mutex_t lock
    pthread_cond_t work        # signalled when a job is queued or on stop
    pthread_cond_t finished    # signalled when a job is finished
    job_t* head                # jobs not started yet, oldest first
    job_t* tail
    int stop
    libdeflate_compressor* comp[13]        # the worker thread's
    pthread_mutex_t help_lock              # one helping (caller) thread at a time
    libdeflate_compressor* help_comp[13]   # the helping thread's
    pthread_mutex_t life                   # held while the thread starts or stops


cdef int _run(job_t* j, libdeflate_compressor** comp) noexcept nogil:
    """Compress one job (level already in range); allocate its output."""
    cdef libdeflate_compressor* c = comp[j.level]
    if c == NULL:
        c = libdeflate_alloc_compressor(j.level)
        if c == NULL:
            return -1
        comp[j.level] = c
    cdef size_t cap = libdeflate_deflate_compress_bound(c, j.n)
    j.dst = <char*>malloc(cap if cap else 1)
    if j.dst == NULL:
        return -1
    j.out = libdeflate_deflate_compress(c, j.src, j.n, j.dst, cap)
    j.crc = libdeflate_crc32(0, j.src, j.n)
    return 0


cdef inline job_t* _pop(shared_t* s) noexcept nogil:
    """The oldest job not started yet, taken off the queue (lock held), or NULL."""
    cdef job_t* j = s.head
    if j != NULL:
        s.head = j.next
        if s.head == NULL:
            s.tail = NULL
    return j


cdef void _cancel_or_wait(shared_t* s, job_t* j) noexcept nogil:
    """Take *j* off the queue if it has not started, else wait for it to finish."""
    cdef job_t* prev = NULL
    cdef job_t* cur
    pthread_mutex_lock(&s.lock)
    cur = s.head
    while cur != NULL and cur != j:
        prev = cur
        cur = cur.next
    if cur != NULL:
        if prev == NULL:
            s.head = j.next
        else:
            prev.next = j.next
        if s.tail == j:
            s.tail = prev
        j.done = 1
    while not j.done:
        pthread_cond_wait(&s.finished, &s.lock)
    pthread_mutex_unlock(&s.lock)


cdef inline void _finished(shared_t* s, job_t* j) noexcept nogil:
    pthread_mutex_lock(&s.lock)
    j.done = 1
    pthread_cond_broadcast(&s.finished)
    pthread_mutex_unlock(&s.lock)


cdef void* _thread_main(void* arg) noexcept nogil:
    cdef shared_t* s = <shared_t*>arg
    cdef job_t* j
    while True:
        pthread_mutex_lock(&s.lock)
        while s.head == NULL and not s.stop:
            pthread_cond_wait(&s.work, &s.lock)
        j = _pop(s)
        pthread_mutex_unlock(&s.lock)
        if j == NULL:
            return NULL
        _run(j, s.comp)
        _finished(s, j)


cdef int _wait(shared_t* s, job_t* j) noexcept nogil:
    """Wait for *j*; meanwhile compress queued jobs in this thread (a waiting caller
    is a free CPU)."""
    cdef job_t* other
    while True:
        pthread_mutex_lock(&s.lock)
        if j.done:
            pthread_mutex_unlock(&s.lock)
            return 0
        other = NULL
        if s.head != NULL and pthread_mutex_trylock(&s.help_lock) == 0:
            other = _pop(s)
            if other == NULL:
                pthread_mutex_unlock(&s.help_lock)
        if other == NULL:
            while not j.done:
                pthread_cond_wait(&s.finished, &s.lock)
            pthread_mutex_unlock(&s.lock)
            return 0
        pthread_mutex_unlock(&s.lock)
        _run(other, s.help_comp)
        pthread_mutex_unlock(&s.help_lock)
        _finished(s, other)


cdef class Job:
    """A block handed to a :class:`Worker`; :meth:`result` waits for it.

    Safe to use from several threads at once: the native job is freed (with the GIL
    held) only when no thread is waiting for it any more.
    """

    cdef job_t* _j
    cdef Worker _worker
    cdef object _data
    cdef object _result
    cdef int _waiters      # threads inside result() waiting without the GIL

    def __cinit__(self) -> None:
        self._j = NULL
        self._waiters = 0

    def done(self) -> bool:
        """The worker has finished this job (:meth:`result` will not wait)."""
        cdef job_t* j = self._j
        if j == NULL:
            return True
        cdef shared_t* s = self._worker._s
        cdef int done
        # The GIL stays held: the job cannot be freed meanwhile (that needs the GIL),
        # and no holder of s.lock ever waits for the GIL.
        pthread_mutex_lock(&s.lock)
        done = j.done
        pthread_mutex_unlock(&s.lock)
        return done != 0

    def result(self) -> tuple[bytes, int]:
        """``(raw deflate stream, CRC-32 of the input)``, waiting for the worker.

        While it waits, the calling thread compresses jobs still queued behind (the
        oldest first), so a caller with nothing else to do lends its CPU.

        Raises:
            MemoryError: the worker could not allocate its buffers.
        """
        if self._result is not None:
            return self._result
        cdef job_t* j = self._j
        if j == NULL:
            raise MemoryError("libdeflate could not allocate its buffers")
        cdef shared_t* s = self._worker._s
        self._waiters += 1
        with nogil:
            _wait(s, j)
        self._waiters -= 1
        # Another thread may have waited too and come back first: j stays valid
        # until the last waiter is back (below), and the result is built once.
        if self._result is None and j.dst != NULL:
            out = PyBytes_FromStringAndSize(j.dst, <Py_ssize_t>j.out)
            self._result = (out, <unsigned long>j.crc)
        if self._waiters == 0:
            self._data = None
            self._release()
        if self._result is None:
            raise MemoryError("libdeflate could not allocate its buffers")
        return self._result

    cdef void _release(self):
        cdef job_t* j = self._j
        if j != NULL:
            free(j.dst)
            free(j)
            self._j = NULL

    def __dealloc__(self) -> None:
        cdef job_t* j = self._j
        cdef shared_t* s
        if j != NULL:
            s = self._worker._s
            with nogil:
                # Nobody wants the result: a queued job is dropped, a running one
                # finished (it writes into j).
                _cancel_or_wait(s, j)
            free(j.dst)
            free(j)
            self._j = NULL


cdef class Worker:
    """One native thread compressing blocks in submission order, without the GIL.

    The thread starts on the first :meth:`submit` and stops on :meth:`close` (or when
    the worker is garbage collected). Safe to share between Python threads: starting
    and stopping the thread are serialized, so there is never more than one.
    """

    cdef shared_t* _s
    cdef pthread_t _thread
    cdef int _running
    cdef int _pid

    def __cinit__(self) -> None:
        self._s = <shared_t*>malloc(sizeof(shared_t))
        if self._s == NULL:
            raise MemoryError()
        memset(self._s, 0, sizeof(shared_t))
        pthread_mutex_init(&self._s.lock, NULL)
        pthread_mutex_init(&self._s.help_lock, NULL)
        pthread_mutex_init(&self._s.life, NULL)
        pthread_cond_init(&self._s.work, NULL)
        pthread_cond_init(&self._s.finished, NULL)
        self._running = 0
        self._pid = 0

    cdef int _start(self) except -1:
        cdef shared_t* s = self._s
        if self._running and self._pid != getpid():
            # Forked: the thread did not survive; pending jobs of the parent are lost.
            memset(s, 0, sizeof(shared_t))
            pthread_mutex_init(&s.lock, NULL)
            pthread_mutex_init(&s.help_lock, NULL)
            pthread_mutex_init(&s.life, NULL)
            pthread_cond_init(&s.work, NULL)
            pthread_cond_init(&s.finished, NULL)
            self._running = 0
        if self._running:
            return 0
        cdef int failed = 0
        with nogil:
            # A close() in another thread may be joining the old thread: wait for it,
            # so that two threads never share the compressors.
            pthread_mutex_lock(&s.life)
        if not self._running:
            s.stop = 0
            if pthread_create(&self._thread, NULL, _thread_main, <void*>s) != 0:
                failed = 1
            else:
                self._running = 1
                self._pid = getpid()
        pthread_mutex_unlock(&s.life)
        if failed:
            raise OSError("cannot start the compression thread")
        return 0

    def submit(self, bytes data not None, int level) -> Job:
        """Queue *data* for compression at *level* (0-12); return its :class:`Job`.

        *data* is kept alive (and must not change) until the job is finished.
        """
        if not 0 <= level <= 12:
            raise ValueError(f"libdeflate level {level} is out of range (0-12)")
        self._start()
        cdef job_t* j = <job_t*>malloc(sizeof(job_t))
        if j == NULL:
            raise MemoryError()
        memset(j, 0, sizeof(job_t))
        j.src = PyBytes_AS_STRING(data)
        j.n = <size_t>PyBytes_GET_SIZE(data)
        j.level = level
        cdef Job job = Job.__new__(Job)
        job._j = j
        job._worker = self
        job._data = data
        cdef shared_t* s = self._s
        with nogil:
            pthread_mutex_lock(&s.lock)
            if s.tail == NULL:
                s.head = j
            else:
                s.tail.next = j
            s.tail = j
            pthread_cond_signal(&s.work)
            pthread_mutex_unlock(&s.lock)
        return job

    def close(self) -> None:
        """Finish the queued jobs and stop the thread (a later submit restarts it)."""
        cdef shared_t* s = self._s
        if not self._running or self._pid != getpid():
            self._running = 0
            return
        with nogil:
            pthread_mutex_lock(&s.life)
        if not self._running:  # closed by another thread meanwhile
            pthread_mutex_unlock(&s.life)
            return
        with nogil:
            pthread_mutex_lock(&s.lock)
            s.stop = 1
            pthread_cond_broadcast(&s.work)
            pthread_mutex_unlock(&s.lock)
            pthread_join(self._thread, NULL)
        self._running = 0
        pthread_mutex_unlock(&s.life)

    def __dealloc__(self) -> None:
        cdef int i
        if self._s == NULL:
            return
        self.close()
        for i in range(13):
            libdeflate_free_compressor(self._s.comp[i])
            libdeflate_free_compressor(self._s.help_comp[i])
        pthread_cond_destroy(&self._s.work)
        pthread_cond_destroy(&self._s.finished)
        pthread_mutex_destroy(&self._s.lock)
        pthread_mutex_destroy(&self._s.help_lock)
        pthread_mutex_destroy(&self._s.life)
        free(self._s)
        self._s = NULL


def deflate(const unsigned char[::1] data, int level) -> bytes:
    """*data* as one raw-deflate stream (final block) at libdeflate *level* (0-12).

    The GIL is released while compressing.
    """
    if not 0 <= level <= 12:
        raise ValueError(f"libdeflate level {level} is out of range (0-12)")
    cdef size_t n = data.shape[0]
    cdef const unsigned char* src = &data[0] if n else NULL
    cdef libdeflate_compressor* c
    cdef size_t cap, out = 0
    cdef char* dst = NULL
    with nogil:
        c = libdeflate_alloc_compressor(level)
        if c != NULL:
            cap = libdeflate_deflate_compress_bound(c, n)
            dst = <char*>malloc(cap if cap else 1)
            if dst != NULL:
                out = libdeflate_deflate_compress(c, src, n, dst, cap)
            libdeflate_free_compressor(c)
    if c == NULL or dst == NULL:
        raise MemoryError("libdeflate could not allocate its buffers")
    try:
        return PyBytes_FromStringAndSize(dst, <Py_ssize_t>out)
    finally:
        free(dst)


def crc32(const unsigned char[::1] data, unsigned int value=0) -> int:
    """CRC-32 of *data*, continuing from *value* (as :func:`zlib.crc32`)."""
    cdef size_t n = data.shape[0]
    if n == 0:
        return value
    cdef unsigned int crc
    with nogil:
        crc = libdeflate_crc32(value, &data[0], n)
    return crc
