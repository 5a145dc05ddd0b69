/*
 * inject_exit.c - the program's end: the raw files written at exit (the
 * batch flushed first while CUDA lives) and from fatal signals (the
 * tables only when no thread is changing them), and nothing written by a
 * forked child. inject_exit.h is the interface.
 */
#include "inject_exit.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "inject_flush.h"
#include "inject_say.h"
#include "inject_state.h"
#include "inject_write.h"

static const int fatal_sigs[] = {SIGINT, SIGTERM, SIGSEGV, SIGABRT};
static struct sigaction old_actions[4];

static void at_exit(void)
{
    if (!g.on)
        return;
    if (pthread_mutex_trylock(&g_lock) == 0) {
        tl_locked++;
        end_run_at_exit();
        ir_abandon();
        write_all("exit");
        g.on = 0;
        unlock();
    } else {
        write_status("exit"); /* another thread is inside a callback */
    }
}

static void on_signal(int sig)
{
    int i = 0;
    while (i < 3 && fatal_sigs[i] != sig)
        i++;
    if (g.on) {
        char end[32] = "signal ";
        char d[12];
        int n = 0, s = sig;
        do {
            d[n++] = (char)('0' + s % 10);
            s /= 10;
        } while (s);
        size_t len = strlen(end);
        while (n)
            end[len++] = d[--n];
        end[len] = '\0';
        /* the tables only when no thread is changing them */
        if (!tl_locked && pthread_mutex_trylock(&g_lock) == 0) {
            end_run(0, "a signal ended the program before this run of "
                       "launches was flushed");
            if (!ir_on()) {
                ic_write_launches(g.dir, g.pid, &g.rows);
                ic_write_lines(g.dir, g.pid, &g.lines);
                ic_write_modules(g.dir, g.pid, &g.modules);
            }
            ic_write_status(g.dir, g.pid, &g.status, end);
            pthread_mutex_unlock(&g_lock);
        } else {
            ic_write_status(g.dir, g.pid, &g.status, end);
        }
        /* the program's own handler may let it live on: then it goes on
         * being profiled and writes again at exit */
        if (old_actions[i].sa_handler == SIG_DFL)
            g.on = 0;
    }
    sigaction(sig, &old_actions[i], NULL);
    raise(sig);
}

static void in_child(void)
{
    /* a forked child without exec cannot use CUDA: it writes nothing */
    g.on = 0;
}

/* Installs the writers at exit and on fatal signals (where the program
 * does not ignore them) and the fork handler. */
void exit_install(void)
{
    atexit(at_exit);
    pthread_atfork(NULL, NULL, in_child);
    for (int i = 0; i < 4; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        if (sigaction(fatal_sigs[i], NULL, &old_actions[i]) == 0 &&
            old_actions[i].sa_handler != SIG_IGN)
            sigaction(fatal_sigs[i], &sa, NULL);
    }
}
