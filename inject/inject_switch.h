/*
 * inject_switch.h - per kernel (--per-kernel; inject_switch.c): each
 * launch counted under its kernel, grid and block, and SASS metrics
 * switched off while no launch needs them.
 */
#ifndef MP_INJECT_SWITCH_H
#define MP_INJECT_SWITCH_H

#include <stddef.h>

#include "inject_state.h"

/* At a launch's entry: counts it under its kernel; with --per-kernel
 * decides k->profile. Its entry + 1 into *pk (untouched when out of
 * memory) and the decision into *pk_profile. */
void per_kernel_decide(const launch_desc *ld, launch_key *k, size_t *pk,
                       int *pk_profile);
/* At its exit: counted under entry pk (made: the call succeeded). */
void per_kernel_count(size_t pk, int pk_profile, int made);
/* SASS metrics off on every context once no launch needs them... */
void per_kernel_pause(void);
/* ...and on again on c for a launch to profile. */
void per_kernel_resume(context_info *c);

#endif
