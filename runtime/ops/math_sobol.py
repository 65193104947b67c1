"""`tf.math.sobol_sample`: points of the Sobol low-discrepancy sequence, TensorFlow's numbers
(Joe and Kuo's direction numbers, the all-zero first point left out). The sequence comes from
SciPy's `scipy.stats.qmc.Sobol`, which uses the same direction numbers: SciPy is an optional
dependency, imported when the first sample is drawn.
"""

from __future__ import annotations

import warnings

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..shapes import TensorSpec
from ..tensor import Tensor
from .core import convert_to_tensor
from .py_function import numpy_function

#: the largest dimension TensorFlow's table of direction numbers covers
MAX_DIM = 21200


def _sobol_kernel(dtype):
    def kernel(dim, num_results, skip):
        dim, num_results, skip = int(dim), int(num_results), int(skip)
        if dim < 1:
            raise InvalidArgumentError("dim must be at least one")
        if dim > MAX_DIM:
            raise InvalidArgumentError(f"dim must be at most {MAX_DIM}")
        if num_results < 1:
            raise InvalidArgumentError("num_results must be at least one")
        if skip < 0:
            raise InvalidArgumentError("skip must be non-negative")
        try:
            from scipy.stats import qmc
        except ImportError:  # pragma: no cover - SciPy is in the test extras
            raise ImportError("math.sobol_sample needs SciPy (pip install scipy): its Sobol "
                              "generator has TensorFlow's direction numbers.") from None
        engine = qmc.Sobol(dim, scramble=False)
        engine.fast_forward(1 + skip)  # TensorFlow starts after the all-zero point
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SciPy's advice to draw powers of two
            return engine.random(num_results).astype(dtype)
    return kernel


@export("math.sobol_sample")
def sobol_sample(dim, num_results, skip=0, dtype=_dtypes.float32, name=None) -> Tensor:
    """`num_results` points (rows) of the `dim`-dimensional Sobol sequence, after skipping
    `skip` of them, as TensorFlow's: the first point is (0.5, 0.5, ...), the all-zero point
    is never returned. `dtype` float32 or float64; `dim` at most 21200. Needs SciPy."""
    out = _dtypes.as_dtype(dtype)
    if out not in (_dtypes.float32, _dtypes.float64):
        raise TypeError(f"Value for attr 'dtype' of {out.name} is not in the list of allowed "
                        "values: float, double")
    args = [convert_to_tensor(v, _dtypes.int32) for v in (dim, num_results, skip)]
    known = [constant_value(a) for a in args[:2]]
    shape = [None if k is None else int(k) for k in reversed(known)]
    return numpy_function(_sobol_kernel(out.as_numpy_dtype), args, TensorSpec(shape, out),
                          stateful=False)
