"""tf.nn.with_space_to_batch (runtime/ops/nn_more.py).

Oracles: TensorFlow's documented identity (a stride-1 convolution run through it with
`dilation_rate` is the dilated convolution; TensorFlow 2.21 gives the same values for these
cases), a 1-D max pool over dilated windows computed in NumPy, and the passthrough at rate 1."""

import numpy as np
import pytest

import runtime as rt

RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 7, 9, 3)).astype(np.float32)
F = RNG.normal(size=(3, 2, 3, 4)).astype(np.float32)


def _conv(inp, n, padding):
    return rt.nn.conv2d(inp, F, 1, padding)


@pytest.mark.parametrize("rate, padding", [([2, 2], "SAME"), ([2, 3], "VALID"),
                                           ([3, 2], "SAME"), ([1, 1], "VALID")])
def test_is_the_dilated_convolution(rate, padding):
    got = rt.nn.with_space_to_batch(X, rate, padding, _conv, filter_shape=[3, 2])
    want = rt.nn.convolution(X, F, padding=padding, dilations=rate)
    assert np.allclose(got.numpy(), want.numpy(), atol=1e-5)
    staged = rt.function(lambda x: rt.nn.with_space_to_batch(x, rate, padding, _conv,
                                                             filter_shape=[3, 2]))
    assert np.allclose(staged(X).numpy(), want.numpy(), atol=1e-5)


def test_dilated_max_pool():
    x = RNG.normal(size=(2, 11, 3))
    got = rt.nn.with_space_to_batch(
        x, [2], "SAME", lambda i, n, p: rt.nn.pool(i, [3], "MAX", padding=p), filter_shape=[3])
    padded = np.pad(x, [[0, 0], [2, 2], [0, 0]])  # space_to_batch_nd pads with zeros
    want = np.max(np.stack([padded[:, d:d + 11] for d in (0, 2, 4)]), axis=0)
    assert np.allclose(got.numpy(), want)


def test_errors():
    with pytest.raises(ValueError, match="filter_shape"):
        rt.nn.with_space_to_batch(X, [2, 2], "SAME", _conv)
    with pytest.raises(ValueError, match="channels-last"):
        rt.nn.with_space_to_batch(X, [2, 2], "VALID", _conv, data_format="NCHW")
    with pytest.raises(ValueError, match="padding"):
        rt.nn.with_space_to_batch(X, [2, 2], "FULL", _conv)
