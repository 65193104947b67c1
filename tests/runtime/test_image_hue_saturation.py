"""rt.image.adjust_hue, random_hue, stateless_random_hue, random_saturation and
stateless_random_saturation: values TensorFlow 2.21 gives for the same images."""

import numpy as np
import pytest

import runtime as rt

IMAGE = np.array([[[0.2, 0.4, 0.9], [0.8, 0.1, 0.3]]], "float32")


def test_adjust_hue_as_tensorflow():
    # tf.image.adjust_hue(IMAGE, 0.2) and of a uint8 pixel by -0.3, printed by TensorFlow
    np.testing.assert_allclose(rt.image.adjust_hue(IMAGE, 0.2),
                               [[[0.84, 0.2, 0.9], [0.8, 0.74, 0.1]]], atol=1e-6)
    pixel = rt.image.adjust_hue(np.array([[[10, 200, 90]]], "uint8"), -0.3)
    assert pixel.dtype == rt.uint8 and pixel.numpy().tolist() == [[[200, 128, 10]]]
    np.testing.assert_allclose(rt.image.adjust_hue(IMAGE, 1.0), IMAGE, atol=1e-6)  # a full turn
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        rt.image.adjust_hue(IMAGE, 1.5)


def test_random_hue_and_saturation_draw_within_their_ranges():
    deltas = np.linspace(-0.3, 0.3, 61)
    candidates = [rt.image.adjust_hue(IMAGE, d).numpy() for d in deltas]
    for _ in range(3):
        out = rt.image.random_hue(IMAGE, 0.3).numpy()
        assert min(np.abs(out - c).max() for c in candidates) < 0.02
    same = rt.image.stateless_random_hue(IMAGE, 0.3, seed=[1, 2])
    np.testing.assert_array_equal(same, rt.image.stateless_random_hue(IMAGE, 0.3, seed=[1, 2]))
    saturated = rt.image.stateless_random_saturation(IMAGE, 0.5, 1.5, seed=[3, 4])
    np.testing.assert_array_equal(saturated, rt.image.stateless_random_saturation(
        IMAGE, 0.5, 1.5, seed=[3, 4]))
    factors = np.linspace(0.5, 1.5, 101)
    out = rt.image.random_saturation(IMAGE, 0.5, 1.5).numpy()
    assert min(np.abs(out - rt.image.adjust_saturation(IMAGE, f).numpy()).max()
               for f in factors) < 0.02
    # TensorFlow's messages
    with pytest.raises(ValueError, match="max_delta must be <= 0.5"):
        rt.image.random_hue(IMAGE, 0.6)
    with pytest.raises(ValueError, match="max_delta must be non-negative"):
        rt.image.stateless_random_hue(IMAGE, -0.1, seed=[1, 2])
    with pytest.raises(ValueError, match="upper must be > lower"):
        rt.image.random_saturation(IMAGE, 0.5, 0.5)
    with pytest.raises(ValueError, match="lower must be non-negative"):
        rt.image.stateless_random_saturation(IMAGE, -1.0, 0.5, seed=[1, 2])


def test_adjust_hue_stages_and_differentiates():
    staged = rt.function(lambda x: rt.image.adjust_hue(x, 0.2))
    np.testing.assert_allclose(staged(IMAGE), rt.image.adjust_hue(IMAGE, 0.2), atol=1e-6)
    x = rt.constant(IMAGE)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.image.adjust_hue(x, 0.1))
    assert tape.gradient(y, x).shape == IMAGE.shape
