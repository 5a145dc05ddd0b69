/*
 * inject_nvtx.c - NVTX: each thread's stack of push/pop ranges (by
 * domain), the strings the program registered (ranges named by their
 * handles), and the raw files written at a range's end.
 * inject_nvtx.h is the interface.
 */
#include "inject_nvtx.h"

#include <cupti_nvtx_cbid.h>
#include <generated_nvtx_meta.h>

#include <string.h>
#include <wchar.h>

#include "inject_say.h"
#include "inject_state.h"
#include "inject_write.h"

#define RANGE_WRITE_S 0.1

/* The NVTX range stack of this thread (push/pop ranges are per thread):
 * the outermost NVTX_DEPTH names, each cut to NVTX_NAME - 1 bytes. */
static _Thread_local struct {
    int depth;
    char name[NVTX_DEPTH][NVTX_NAME];
    const void *domain[NVTX_DEPTH];
} tl_nvtx;

/* The strings the program registered with NVTX (a range named by a
 * registered string gives only its handle), kept under the lock. */
static ic_nvtx nvtx_strings;

static void nvtx_push(const char *ascii, const wchar_t *wide,
                      const void *domain)
{
    int d = tl_nvtx.depth++;
    if (d >= NVTX_DEPTH)
        return;
    ic_nvtx_name(tl_nvtx.name[d], ascii, wide);
    tl_nvtx.domain[d] = domain;
}

/* nvtxDomainRegisterString{A,W}: the handle NVTX returned (CUPTI hands
 * its address to the callback) and the string, kept for the ranges that
 * name it. */
static void nvtx_register(const CUpti_NvtxData *nd, const char *ascii,
                          const wchar_t *wide)
{
    const void *const *handle = nd->functionReturnValue;
    dbg("nvtx register: handle %p, string '%s'", handle ? *handle : NULL,
        ascii ? ascii : "(wide)");
    if (handle)
        ic_nvtx_register(&nvtx_strings, *handle, ascii, wide);
}

/* Pops the innermost range of this domain (NULL: the default domain;
 * none of it on the stack: the innermost range). */
static void nvtx_pop(const void *domain)
{
    if (tl_nvtx.depth <= 0)
        return;
    if (tl_nvtx.depth > NVTX_DEPTH) {
        tl_nvtx.depth--;
        return;
    }
    int d = tl_nvtx.depth - 1;
    while (d >= 0 && tl_nvtx.domain[d] != domain)
        d--;
    if (d < 0)
        d = tl_nvtx.depth - 1;
    for (int i = d; i + 1 < tl_nvtx.depth; i++) {
        memcpy(tl_nvtx.name[i], tl_nvtx.name[i + 1], NVTX_NAME);
        tl_nvtx.domain[i] = tl_nvtx.domain[i + 1];
    }
    tl_nvtx.depth--;
}

static void nvtx_push_attr(const nvtxEventAttributes_t *a, const void *domain)
{
    if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII)
        nvtx_push(a->message.ascii, NULL, domain);
    else if (a && a->messageType == NVTX_MESSAGE_TYPE_UNICODE)
        nvtx_push(NULL, a->message.unicode, domain);
    else if (a && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
        const char *r = ic_nvtx_lookup(&nvtx_strings,
                                       a->message.registered);
        nvtx_push(r ? r : "(registered string)", NULL, domain);
    } else
        nvtx_push("", NULL, domain);
}

void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *nd)
{
    const void *p = nd->functionParams;
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        nvtx_push(((const nvtxRangePushA_params *)p)->message, NULL, NULL);
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushW:
        nvtx_push(NULL, ((const nvtxRangePushW_params *)p)->message, NULL);
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        nvtx_push_attr(((const nvtxRangePushEx_params *)p)->eventAttrib,
                       NULL);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
        const nvtxDomainRangePushEx_params *dp = p;
        nvtx_push_attr(dp->core.eventAttrib, dp->domain);
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
        nvtx_pop(NULL);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        nvtx_pop(((const nvtxDomainRangePop_params *)p)->domain);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
        nvtx_register(nd, ((const nvtxDomainRegisterStringA_params *)p)
                              ->string, NULL);
        return;
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringW:
        /* CUPTI's header types the string char *; NVTX's is wchar_t * */
        nvtx_register(nd, NULL, (const wchar_t *)(const void *)(
                          (const nvtxDomainRegisterStringW_params *)p)
                          ->string);
        return;
    default:
        return;
    }
    dbg("nvtx %s: depth %d%s%s", nd->functionName ? nd->functionName : "",
        tl_nvtx.depth, tl_nvtx.depth > 0 ? ", top " : "",
        tl_nvtx.depth > 0 && tl_nvtx.depth <= NVTX_DEPTH
            ? tl_nvtx.name[tl_nvtx.depth - 1] : "");
    /* a range end: what its launches gave is written (at most every
     * RANGE_WRITE_S: a program with a range per iteration would rewrite
     * the lines file thousands of times a second) */
    if ((cbid == CUPTI_CBID_NVTX_nvtxRangePop ||
         cbid == CUPTI_CBID_NVTX_nvtxDomainRangePop) &&
        (g.rows.n || g.since_write) && now_s() - g.last_write >= RANGE_WRITE_S)
        write_all("flush");
}

/* This thread's stack as names (outermost first) and joined by '/'. */
size_t nvtx_stack(const char **names, char *joined, size_t len)
{
    size_t depth = (size_t)(tl_nvtx.depth < NVTX_DEPTH ? tl_nvtx.depth
                                                      : NVTX_DEPTH);
    size_t n = 0;
    joined[0] = '\0';
    for (size_t i = 0; i < depth; i++) {
        names[i] = tl_nvtx.name[i];
        int w = snprintf(joined + n, len - n, "%s%s", i ? "/" : "",
                         names[i]);
        if (w > 0)
            n = n + (size_t)w < len ? n + (size_t)w : len - 1;
    }
    return depth;
}
