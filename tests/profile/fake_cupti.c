/* fake_cupti.c - a stand-in libcupti.so.13 for tests/test_profile.c, as
 * CUPTI answers a program's own client while memprobe holds the only
 * subscription: cuptiSubscribe and cuptiSubscribe_v2 say on stderr that
 * they were called and refuse with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_
 * SUPPORTED (39), the holder named in v2's oldSubscriberName; with
 * FAKE_CUPTI_FREE set (nobody holds it) they succeed. Only the types it
 * needs, no CUPTI header. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    size_t structSize;
    const char *subscriberName;
    char *oldSubscriberName;
    size_t oldSubscriberSize;
    uint8_t allowMultipleSubscribers;
    uint8_t padding[7];
} params;

static int subscribe(const char *call, void **s, params *p)
{
    fprintf(stderr, "fake_cupti: %s\n", call);
    if (!getenv("FAKE_CUPTI_FREE")) {
        if (p && p->oldSubscriberName && p->oldSubscriberSize)
            snprintf(p->oldSubscriberName, p->oldSubscriberSize,
                     "CUPTI for memprobe");
        return 39;
    }
    *s = (void *)1;
    return 0;
}

int cuptiSubscribe_v2(void **s, void *cb, void *ud, params *p)
{
    (void)cb, (void)ud;
    return subscribe("cuptiSubscribe_v2", s, p);
}

int cuptiSubscribe(void **s, void *cb, void *ud)
{
    (void)cb, (void)ud;
    return subscribe("cuptiSubscribe", s, NULL);
}

int cuptiGetResultString(int r, const char **text)
{
    *text = r == 39 ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                    : "CUPTI_ERROR_UNKNOWN";
    return 0;
}
