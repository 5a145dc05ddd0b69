/* client.c - the program's own CUPTI client, refused and told so.
 *
 * libmemprobe_client.so, first in a profiled program's LD_PRELOAD
 * (profile/profile.c), stands in for CUPTI's cuptiSubscribe and
 * cuptiSubscribe_v2 and passes each call on unchanged. memprobe
 * subscribes alone (inject/inject.c says why), so a program that profiles
 * itself (torch.profiler's Kineto, a CUPTI sample) is refused with
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED; here the refusal is
 * said once, in one `memprobe:` line on stderr, instead of the program's
 * profiler coming back empty without a word from memprobe. memprobe's own
 * call (subscriber name "memprobe") is not reported. A program that looks
 * CUPTI up with dlsym on its own handle (XLA, so jax.profiler) bypasses
 * this: it reports the failed call itself. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cupti_callbacks.h>
#include <cupti_result.h>

#define EXPORT __attribute__((visibility("default")))

typedef CUptiResult (*subscribe_fn)(CUpti_SubscriberHandle *,
                                    CUpti_CallbackFunc, void *);
typedef CUptiResult (*subscribe_v2_fn)(CUpti_SubscriberHandle *,
                                       CUpti_CallbackFunc, void *,
                                       CUpti_SubscriberParams *);

/* The refusal of the program's call, said once per process. */
static void say_refused(const char *call, CUptiResult r, const char *holder)
{
    static int said;
    if (r != CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || said)
        return;
    said = 1;
    const char *text = NULL;
    CUptiResult (*str)(CUptiResult, const char **) =
        (CUptiResult(*)(CUptiResult, const char **))dlsym(
            RTLD_NEXT, "cuptiGetResultString");
    if (!str || str(r, &text) != CUPTI_SUCCESS)
        text = NULL;
    fprintf(stderr, "memprobe: the program's own CUPTI client was refused "
            "(%s: %d %s%s%s): its profiler (torch.profiler, a CUPTI "
            "tool) records no GPU activity under memprobe; memprobe's "
            "counts are not affected\n", call, (int)r, text ? text : "",
            holder && holder[0] ? ", held by " : "",
            holder && holder[0] ? holder : "");
}

EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *s,
                                           CUpti_CallbackFunc cb, void *ud)
{
    subscribe_fn real = (subscribe_fn)dlsym(RTLD_NEXT, "cuptiSubscribe");
    if (!real)
        return CUPTI_ERROR_NOT_INITIALIZED;
    CUptiResult r = real(s, cb, ud);
    say_refused("cuptiSubscribe", r, "memprobe");
    return r;
}

EXPORT CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *s,
                                              CUpti_CallbackFunc cb,
                                              void *ud,
                                              CUpti_SubscriberParams *p)
{
    subscribe_v2_fn real =
        (subscribe_v2_fn)dlsym(RTLD_NEXT, "cuptiSubscribe_v2");
    if (!real)
        return CUPTI_ERROR_NOT_INITIALIZED;
    CUptiResult r = real(s, cb, ud, p);
    if (!p || !p->subscriberName || strcmp(p->subscriberName, "memprobe"))
        say_refused("cuptiSubscribe_v2", r,
                    p && p->oldSubscriberName ? p->oldSubscriberName
                                              : "memprobe");
    return r;
}
