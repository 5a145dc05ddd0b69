/*
 * explain_h200.h - the committed H200 measurement of a probe command:
 * the row of the CSVs of results/h200/PROBE/ whose configuration is the one the
 * command measures (docs/explain.md, "probe").
 */
#ifndef MP_EXPLAIN_H200_H
#define MP_EXPLAIN_H200_H

#include <stddef.h>

/* For `memprobe PROBE --name value ...` (explain's probe command): the
 * configuration's label in *config, and, when a verified row of that
 * configuration with a number in column `count` (wavefronts_per_request,
 * sectors_per_request) is committed under results/h200/PROBE/ (memprobe's
 * own data, own_files.h: its checkout or its installed prefix), that number in *per_request and the
 * file (from results/ on) in *file: 1. 0: none committed (*config set
 * when the command parses), -1: not a probe command. */
int mp_xp_h200(const char *command, const char *count, char *config,
               size_t clen, double *per_request, char *file, size_t flen);

#endif
