/*
 * fuzz_results_csv.c - libFuzzer target: memprobe's own results CSV, read
 * three ways: as a plain table (mp_csv_table_read), by the report
 * (mp_rep_load, then every table built and printed), and by a sweep's
 * --resume (mp_sweep_resume against configs/texture.conf).
 *
 * Any bytes: each reader returns data or a one-line reason, without a
 * crash, a leak or undefined behaviour.
 */
#include "fuzz_util.h"
#include "csv_table.h"
#include "report.h"
#include "sweep_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MP_FUZZ_SWEEP_FILE
#define MP_FUZZ_SWEEP_FILE "configs/texture.conf"
#endif

int fuzz_results_csv(const uint8_t *data, size_t size)
{
    char path[64], err[512] = "";
    int fd = fuzz_file(data, size, "results.csv", path, sizeof path);

    mp_csv_table t;
    if (mp_csv_table_read(path, &t, err, sizeof err) != 0)
        fuzz_check_reason(err);
    mp_csv_free(&t);

    mp_rep_data d;
    const char *paths[] = {path};
    err[0] = '\0';
    if (mp_rep_load(&d, 1, paths, NULL, NULL, err, sizeof err) == 0) {
        for (int i = 0; mp_rep_table_name(i); i++) {
            mp_rep_table *tab = mp_rep_table_build(&d, mp_rep_table_name(i));
            char *text = NULL;
            size_t len = 0;
            FILE *out = open_memstream(&text, &len);
            mp_rep_table_print(tab, MP_REP_MD, 0, out);
            fclose(out);
            free(text);
            mp_rep_table_free(tab);
        }
        mp_rep_free(&d);
    } else {
        fuzz_check_reason(err);
    }

    mp_sweep s;
    err[0] = '\0';
    if (mp_sweep_read(MP_FUZZ_SWEEP_FILE, &s, err, sizeof err) == 0) {
        err[0] = '\0';
        if (mp_sweep_resume(&s, path, err, sizeof err) != 0)
            fuzz_check_reason(err);
        mp_sweep_free(&s);
    }
    fuzz_file_close(fd);
    return 0;
}

MP_FUZZ_ENTRY(fuzz_results_csv)
