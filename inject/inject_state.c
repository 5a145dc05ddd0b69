/*
 * inject_state.c - the injection library's one state (g) and the lock
 * that guards it (inject_state.h).
 */
#include "inject_state.h"

inject_state g;

pthread_mutex_t g_lock;
/* this thread holds g_lock (the signal handler must not touch the tables) */
_Thread_local int tl_locked;

void lock(void)
{
    pthread_mutex_lock(&g_lock);
    tl_locked++;
}

void unlock(void)
{
    tl_locked--;
    pthread_mutex_unlock(&g_lock);
}
