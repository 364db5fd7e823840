#ifndef TESSERA_CLIBUV_SHIM_H
#define TESSERA_CLIBUV_SHIM_H

#include <uv.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <pthread.h>
#include <errno.h>
#include <time.h>

/* Accepts a connection as a non-blocking, close-on-exec socket, retrying when a signal interrupts; glibc declares
 * accept4 only under _GNU_SOURCE. Returns the socket, or -1 with errno set. */
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int tessera_accept(int fd) {
    int socket;
    do {
        socket = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    } while (socket < 0 && errno == EINTR);
    return socket;
}

/* Swift cannot import the UV_EOF family of macros reliably: expose the values we test for. */
static inline int tessera_uv_eof(void) { return UV_EOF; }
static inline int tessera_uv_ecanceled(void) { return UV_ECANCELED; }
static inline int tessera_uv_eaddrinuse(void) { return UV_EADDRINUSE; }

/* Names the calling thread (shown by top -H and gdb); glibc declares it only under _GNU_SOURCE. */
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline void tessera_set_thread_name(const char *name) { pthread_setname_np(pthread_self(), name); }

/* Names the calling thread of libuv's pool "tessera-pool", once per thread. libuv starts its pool from the thread that
 * queues work first, and a new thread inherits that thread's name: without this, top -H and profiles showed the pool as
 * more threads of a loop. */
static inline void tessera_name_pool_thread(void) {
    static _Thread_local int named;
    if (!named) {
        named = 1;
        pthread_setname_np(pthread_self(), "tessera-pool");
    }
}

#endif
