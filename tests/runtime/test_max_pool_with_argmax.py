"""tf.nn.max_pool_with_argmax (runtime/ops/nn_more.py).

Oracles: a small case printed by TensorFlow 2.21 (ties included), a plain-Python loop over
the windows (the first maximum in row-major window order, flat indices as TensorFlow
documents them), and the gradient reaching the chosen elements only."""

import numpy as np
import pytest

import runtime as rt


def test_small_case_matches_tensorflow():
    x = np.array([[1, 3, 2, 3], [0, 5, 5, 1], [2, 2, 7, 0]], np.float32).reshape(1, 3, 4, 1)
    out, argmax = rt.nn.max_pool_with_argmax(x, 2, 2, "SAME", include_batch_in_index=True)
    assert out.numpy().ravel().tolist() == [5.0, 5.0, 2.0, 7.0]   # printed by TensorFlow 2.21
    assert argmax.numpy().ravel().tolist() == [5, 6, 8, 10]
    assert argmax.dtype == rt.int64


def _loop(x, kh, kw, sh, sw, padding, include_batch):
    n, h, w, c = x.shape
    if padding == "VALID":
        oh, ow, top, left = (h - kh) // sh + 1, (w - kw) // sw + 1, 0, 0
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        top = max((oh - 1) * sh + kh - h, 0) // 2
        left = max((ow - 1) * sw + kw - w, 0) // 2
    out = np.zeros((n, oh, ow, c), x.dtype)
    arg = np.zeros((n, oh, ow, c), np.int64)
    for b, i, j, k in np.ndindex(n, oh, ow, c):
        best, where = -np.inf, -1
        for dy in range(kh):
            for dx in range(kw):
                y, xx = i * sh + dy - top, j * sw + dx - left
                if 0 <= y < h and 0 <= xx < w and x[b, y, xx, k] > best:
                    best = x[b, y, xx, k]
                    where = ((b * h + y) * w + xx) * c + k if include_batch else (y * w + xx) * c + k
        out[b, i, j, k], arg[b, i, j, k] = best, where
    return out, arg


@pytest.mark.parametrize("k, s, padding, include_batch", [
    ((2, 2), (2, 2), "VALID", False), ((3, 3), (2, 2), "SAME", True),
    ((2, 3), (1, 2), "SAME", False), ((3, 3), (1, 1), "VALID", True)])
def test_matches_a_loop_over_the_windows(k, s, padding, include_batch):
    x = np.round(np.random.default_rng(0).normal(size=(2, 5, 6, 3)), 1).astype(np.float32)
    out, arg = rt.nn.max_pool_with_argmax(x, list(k), list(s), padding,
                                          include_batch_in_index=include_batch)
    want_out, want_arg = _loop(x, *k, *s, padding, include_batch)
    assert np.array_equal(out.numpy(), want_out) and np.array_equal(arg.numpy(), want_arg)
    assert np.array_equal(out.numpy(), rt.nn.max_pool2d(x, list(k), list(s), padding).numpy())


def test_gradient_reaches_the_chosen_elements_and_stages():
    x = rt.constant(np.random.default_rng(1).normal(size=(1, 4, 4, 2)))

    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            out, arg = rt.nn.max_pool_with_argmax(x, 2, 2, "VALID", output_dtype=rt.int32)
            y = rt.reduce_sum(out * out)
        return tape.gradient(y, x), out, arg
    for fn in (grad, rt.function(grad)):
        g, out, arg = fn(x)
        want = np.zeros(x.shape.as_list()).ravel()
        want[arg.numpy().ravel()] = 2 * out.numpy().ravel()
        assert arg.dtype == rt.int32 and np.allclose(g.numpy().ravel(), want)


def test_errors():
    x = np.zeros((1, 4, 4, 1), np.float32)
    with pytest.raises(ValueError, match="NHWC"):
        rt.nn.max_pool_with_argmax(x, 2, 2, "VALID", data_format="NCHW")
    with pytest.raises(TypeError, match="output_dtype"):
        rt.nn.max_pool_with_argmax(x, 2, 2, "VALID", output_dtype=rt.float32)
    with pytest.raises(ValueError, match="padding"):
        rt.nn.max_pool_with_argmax(x, 2, 2, "FULL")
