"""Scale-out on Dask (the optional extra `pip install 'autograph-rt[dask]'`).

    rt.dask.map_blocks(fn, *arrays)          # a compiled function over dask arrays, blockwise
    rt.dask.data_parallel_gradients(model, loss_fn, x, y, client)   # loss and averaged grads

Workers receive the saved form of a concrete function (bytes: the graph file and arrays),
never a pickled closure, and load it once per process (cached by content hash).
"""

try:
    import dask.array  # noqa: F401 - fails early, with the install hint, when Dask is missing
except ImportError:
    raise ImportError("rt.dask needs Dask: pip install 'autograph-rt[dask]'") from None

from .blocks import map_blocks
from .parallel import data_parallel_gradients

__all__ = ["data_parallel_gradients", "map_blocks"]
