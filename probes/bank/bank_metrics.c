/*
 * bank_metrics.c - the bank family's metric set, "shared": bank conflicts,
 * wavefronts and instructions of shared-memory loads and stores.
 */
#include "metric_set.h"

static const mp_metric shared_set[] = {
    SHARED_ROWS(ARBITRATION, STORE_ARBITRATION),
    TIME_ROW
};

MP_METRIC_SET_DEF(mp_set_shared, shared_set, "shared", 1);
