/*
 * bank_metrics.c - the bank family's metric set, "shared": bank conflicts,
 * wavefronts and instructions of shared-memory loads and stores.
 */
#include "metric_set.h"

static const mp_metric shared_set[] = {
    SHARED_ROWS(ARBITRATION, STORE_ARBITRATION),
    TIME_ROW
};

const mp_metric_set_def mp_set_shared =
    MP_METRIC_SET(shared_set, "shared", 1);
