"""rt.experimental.dlpack: tensors to and from DLPack capsules, as TensorFlow 2.21's
to_dlpack / from_dlpack (round trip, NumPy's and JAX's arrays)."""

import numpy as np
import pytest

import runtime as rt


def test_round_trip_and_other_libraries():
    capsule = rt.experimental.dlpack.to_dlpack(rt.constant([1.0, 2.0]))
    assert type(capsule).__name__ == "PyCapsule"
    back = rt.experimental.dlpack.from_dlpack(capsule)
    assert back.dtype == rt.float32 and back.numpy().tolist() == [1.0, 2.0]
    from_numpy = rt.experimental.dlpack.from_dlpack(np.arange(3).__dlpack__())
    assert from_numpy.dtype == rt.int64 and from_numpy.numpy().tolist() == [0, 1, 2]
    assert rt.experimental.dlpack.from_dlpack(np.array([True, False])).dtype == rt.bool
    with pytest.raises(rt.errors.InvalidArgumentError, match="DLPack"):
        rt.experimental.dlpack.to_dlpack(rt.constant(["a"]))


def test_jax_arrays():
    jnp = pytest.importorskip("jax.numpy")
    out = rt.experimental.dlpack.from_dlpack(jnp.arange(3.0))
    assert out.dtype == rt.float32 and out.numpy().tolist() == [0.0, 1.0, 2.0]
