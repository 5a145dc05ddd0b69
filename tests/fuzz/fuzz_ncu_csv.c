/*
 * fuzz_ncu_csv.c - libFuzzer target: Nsight Compute's CSV (`ncu --csv
 * --page raw`) as memprobe's ncu-check reads it (runtime/csv_table.c).
 *
 * Any bytes: the parser returns a table or a one-line reason, never reads
 * past the buffer (it is not NUL-terminated), and every cell it returns
 * is a string that the number parser can take.
 */
#include "fuzz_util.h"
#include "csv_table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int fuzz_ncu_csv(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so that ASan sees any read past the end. */
    char *buf = malloc(size ? size : 1);
    if (size)
        memcpy(buf, data, size);
    mp_csv_table t;
    char err[512] = "";
    if (mp_ncu_parse(buf, size, "fuzz.csv", &t, err, sizeof err) == 0) {
        for (int r = 0; r < t.nrows; r++)
            for (int c = 0; c < t.ncols; c++) {
                double v;
                (void)mp_csv_number(&t, r, c, &v);
            }
        (void)mp_csv_column(&t, "ID");
    } else {
        fuzz_check_reason(err);
    }
    mp_csv_free(&t);
    mp_csv_free(&t);   /* documented safe twice */
    free(buf);
    return 0;
}

MP_FUZZ_ENTRY(fuzz_ncu_csv)
