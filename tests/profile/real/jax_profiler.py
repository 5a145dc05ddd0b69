# jax_profiler.py - a JAX program that traces itself with jax.profiler (a
# CUPTI client of its own) around a jitted kernel, and says whether the
# trace holds the GPU's plane.
import glob, os, sys, tempfile
# autotuning off: XLA times candidate kernels a varying number of times,
# so two runs (memprobe's, ncu's) would launch different work
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_gpu_autotune_level=0").strip()
import jax
import jax.numpy as jnp

def main():
    d = tempfile.mkdtemp()
    f = jax.jit(lambda x: jnp.sin(x) * 2.0 + 1.0)
    x = jnp.arange(1 << 20, dtype=jnp.float32)
    f(x).block_until_ready()
    with jax.profiler.trace(d):
        y = f(x).block_until_ready()
    ok = abs(float(y[1]) - (2.0 * 0.8414709848 + 1.0)) < 1e-4
    files = glob.glob(os.path.join(d, "**", "*.xplane.pb"), recursive=True)
    gpu = any(b"/device:GPU:0" in open(p, "rb").read() for p in files)
    print("jax_profiler: %d trace files, GPU plane %s, result %s"
          % (len(files), "yes" if gpu else "no", "ok" if ok else "WRONG"))
    return 0 if gpu and ok else 1

if __name__ == "__main__":
    sys.exit(main())
