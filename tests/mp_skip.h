/*
 * mp_skip.h - skipping a cmocka test with a reason, for the CPU tests
 * (tests/) and the GPU tests (tests/gpu/). Include it after <cmocka.h>.
 *
 *     if (!cli_have_gnuplot())
 *         MP_SKIP("gnuplot not installed");
 *
 * cmocka 1.1.5's skip() takes no reason and prints "not ok N # SKIP NAME",
 * which prove counts as a failure. MP_SKIP prints the reason as the TAP
 * diagnostic "# skip: REASON" and then calls skip(); scripts/tap-run.sh,
 * which `make test` and `make test-gpu` run every test program through,
 * turns that pair into the passing skip "ok N - NAME # SKIP REASON". A
 * bare skip() stays "not ok" there: every skip says why.
 *
 * The arguments are a printf format and its values; the reason must be one
 * line. Like skip(), MP_SKIP does not return.
 */
#ifndef MP_SKIP_H
#define MP_SKIP_H

#define MP_SKIP(...)                                                        \
    do {                                                                    \
        print_message("# skip: ");                                          \
        print_message(__VA_ARGS__);                                         \
        print_message("\n");                                                \
        skip();                                                             \
    } while (0)

#endif
