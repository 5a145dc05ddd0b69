/*
 * nvtx.c - push/pop of named ranges in the "memprobe" NVTX domain.
 */
#include "nvtx.h"

#include <nvtx3/nvToolsExt.h>

static nvtxDomainHandle_t domain(void)
{
    static nvtxDomainHandle_t d;
    if (!d)
        d = nvtxDomainCreateA("memprobe");
    return d;
}

void mp_nvtx_push(const char *name)
{
    nvtxEventAttributes_t a = {0};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxDomainRangePushEx(domain(), &a);
}

void mp_nvtx_pop(void)
{
    nvtxDomainRangePop(domain());
}
