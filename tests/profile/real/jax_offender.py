# jax_offender.py - a JAX program whose jitted function reads every
# eighth column of a matrix (XLA's fused kernel loads floats 32 bytes
# apart: a sector a lane) and scales it. Checked against NumPy.
import os
import sys
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
# autotuning off: the two runs of explain (counts, addresses) launch the
# same work
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_gpu_autotune_level=0").strip()
import numpy as np
import jax
import jax.numpy as jnp

@jax.jit
def every_eighth(x):
    return x[:, ::8] * 2.0 + 1.0

def main():
    a = np.random.default_rng(5).standard_normal((2048, 2048)).astype(np.float32)
    y = np.asarray(every_eighth(jnp.asarray(a)).block_until_ready())
    ok = np.allclose(y, a[:, ::8] * 2.0 + 1.0, rtol=1e-6)
    print("jax_offender:", "ok" if ok else "WRONG")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
