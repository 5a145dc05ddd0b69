/*
 * chain.cuh - one dependent load of a global pointer chase, for the
 * latency probe's chases (latency.cu) and the L2 map's walks (l2map.cu):
 * inline PTX ld.global.ca (through L1) or ld.global.cg (L2 only), asm
 * volatile, so the compiler can neither drop, merge nor reorder it.
 */
#ifndef MP_PROBES_LATENCY_CHAIN_CUH
#define MP_PROBES_LATENCY_CHAIN_CUH

/* The next position from p: the 64-bit device address p holds. */
template <bool CG> struct global_chain {
    static __device__ __forceinline__ unsigned long long
    load(unsigned long long p)
    {
        unsigned long long v;
        if (CG)
            asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
        else
            asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p));
        return v;
    }
};

#endif
