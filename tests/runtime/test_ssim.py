"""tf.image.ssim and ssim_multiscale (runtime/ops/image.py).

Oracles: values recorded from TensorFlow 2.21 on the images drawn below (the same NumPy draws,
`tf.image.ssim(a, b, 1.0)` and so on, eagerly), the definition computed with NumPy loops, and
the identity ssim(x, x) = 1.
"""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

RNG = np.random.default_rng(31)
A = RNG.uniform(0, 1, (2, 40, 37, 3)).astype(np.float32)
B = np.clip(A + RNG.normal(0, 0.1, A.shape), 0, 1).astype(np.float32)
BIG_A = RNG.uniform(0, 1, (1, 180, 170, 1)).astype(np.float32)
BIG_B = np.clip(BIG_A + RNG.normal(0, 0.2, BIG_A.shape), 0, 1).astype(np.float32)

# recorded from TensorFlow 2.21
SSIM = [0.9462482333183289, 0.9463692307472229]                  # ssim(A, B, 1.0)
SSIM_U8 = [0.9462652802467346, 0.9463368058204651]               # the same as uint8, max_val 255
MS_SSIM = [0.8431181311607361]                                   # ssim_multiscale(BIG_A, BIG_B, 1.0)
MS_SSIM_3 = [0.9523563385009766, 0.9432775378227234]  # power_factors=(.3, .3, .4), filter_size=5
# ssim(A[0], B[0], 1.0, filter_size=7, filter_sigma=1.0, return_index_map=True)[:2, :3]
MAP_CORNER = [[0.9399668574333191, 0.9372050762176514, 0.9359837174415588],
              [0.9519741535186768, 0.9544708728790283, 0.9462248682975769]]
# the gradient of sum(ssim(x, B, 1.0)) at x = A, [0, 10:12, 10:13, 0]
GRAD_INTERIOR = [[-9.626887913327664e-05, -3.843136073555797e-05, 0.00048546085599809885],
                 [0.00046838668640702963, 2.5146131520159543e-05, -0.0005797702469862998]]


def test_values_match_tensorflow():
    got = rt.image.ssim(A, B, 1.0)
    assert got.dtype is rt.float32 and got.shape == [2]
    np.testing.assert_allclose(got.numpy(), SSIM, rtol=1e-6)
    u1, u2 = (A * 255).astype(np.uint8), (B * 255).astype(np.uint8)
    np.testing.assert_allclose(rt.image.ssim(u1, u2, 255).numpy(), SSIM_U8, rtol=1e-6)
    index_map = rt.image.ssim(A[0], B[0], 1.0, filter_size=7, filter_sigma=1.0,
                              return_index_map=True)
    assert index_map.shape == [34, 31]
    np.testing.assert_allclose(index_map.numpy()[:2, :3], MAP_CORNER, rtol=1e-5)
    np.testing.assert_allclose(rt.image.ssim_multiscale(BIG_A, BIG_B, 1.0).numpy(), MS_SSIM,
                               rtol=1e-5)
    np.testing.assert_allclose(rt.image.ssim_multiscale(A, B, 1.0, power_factors=(0.3, 0.3, 0.4),
                                                        filter_size=5).numpy(), MS_SSIM_3,
                               rtol=1e-5)
    staged = rt.function(lambda p, q: rt.image.ssim_multiscale(p, q, 1.0))
    np.testing.assert_allclose(staged(BIG_A, BIG_B).numpy(), MS_SSIM, rtol=1e-5)


def test_gradient_matches_tensorflow():
    x = rt.constant(A)
    with rt.GradientTape() as tape:
        tape.watch(x)
        total = rt.reduce_sum(rt.image.ssim(x, B, 1.0))
    grad = tape.gradient(total, x).numpy()
    np.testing.assert_allclose(grad[0, 10:12, 10:13, 0], GRAD_INTERIOR, rtol=1e-4, atol=1e-9)


def _plain_ssim(a, b, size=11, sigma=1.5, top=1.0):
    coords = np.arange(size) - (size - 1) / 2
    window = np.exp(-(coords[:, None] ** 2 + coords[None, :] ** 2) / (2 * sigma ** 2))
    window /= window.sum()
    c1, c2 = (0.01 * top) ** 2, (0.03 * top) ** 2
    h, w = a.shape[0] - size + 1, a.shape[1] - size + 1
    out = np.zeros((h, w, a.shape[2]))
    for i in range(h):
        for j in range(w):
            pa, pb = a[i:i + size, j:j + size], b[i:i + size, j:j + size]
            ma = np.einsum("ij,ijc->c", window, pa)
            mb = np.einsum("ij,ijc->c", window, pb)
            va = np.einsum("ij,ijc->c", window, pa * pa) - ma ** 2
            vb = np.einsum("ij,ijc->c", window, pb * pb) - mb ** 2
            cov = np.einsum("ij,ijc->c", window, pa * pb) - ma * mb
            out[i, j] = ((2 * ma * mb + c1) * (2 * cov + c2)) / \
                ((ma ** 2 + mb ** 2 + c1) * (va + vb + c2))
    return out.mean()


def test_is_the_definition_and_one_for_equal_images():
    a, b = A[1, :20, :18].astype(np.float64), B[1, :20, :18].astype(np.float64)
    np.testing.assert_allclose(rt.image.ssim(a, b, 1.0).numpy(), _plain_ssim(a, b), rtol=1e-5)
    np.testing.assert_allclose(rt.image.ssim(A, A, 1.0).numpy(), [1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(rt.image.ssim_multiscale(BIG_A, BIG_A, 1.0).numpy(), [1.0],
                               rtol=1e-5)


def test_errors():
    with pytest.raises(InvalidArgumentError, match="filter_size"):
        rt.image.ssim(A[:, :8, :8], B[:, :8, :8], 1.0)
    with pytest.raises(InvalidArgumentError, match="filter_size"):  # 40 -> 20 -> 10 at scale 3
        rt.image.ssim_multiscale(A, B, 1.0)
    with pytest.raises(ValueError, match="one shape"):
        rt.image.ssim(A, B[:, :30], 1.0)
