"""input_signature on functions whose trailing parameters have defaults: the defaulted Python
parameters keep their defaults (TensorFlow's behaviour), or take the Python value passed."""

import numpy as np
import pytest

import runtime as rt

SPEC = [rt.TensorSpec([None], rt.float32)]


def test_a_function_with_a_defaulted_trailing_parameter():
    @rt.function(input_signature=SPEC)
    def f(x, training=False):
        return x * 3.0 if training else x * 2.0

    x = rt.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(f(rt.constant([1.0, 2.0, 3.0])).numpy(), [2.0, 4.0, 6.0])
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(f(x, True).numpy(), [3.0, 6.0])  # a Python value: baked in
    np.testing.assert_array_equal(f(x, training=True).numpy(), [3.0, 6.0])
    assert f.experimental_get_tracing_count() == 2
    np.testing.assert_array_equal(f.get_concrete_function()(x).numpy(), [2.0, 4.0])


def test_a_tensor_for_a_parameter_outside_the_signature_is_refused():
    f = rt.function(lambda x, scale=2.0: x * scale, input_signature=SPEC)
    with pytest.raises(TypeError, match="'scale' is not covered by the input_signature"):
        f(rt.constant([1.0]), rt.constant(3.0))
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        f()


def test_keyword_only_defaults():
    @rt.function(input_signature=SPEC)
    def f(x, *, offset=1.0):
        return x + offset

    np.testing.assert_array_equal(f(rt.constant([1.0])).numpy(), [2.0])
    np.testing.assert_array_equal(f(rt.constant([1.0]), offset=5.0).numpy(), [6.0])


def test_a_method_with_a_defaulted_trailing_parameter():
    class Scaler:
        def __init__(self):
            self.w = rt.Variable(2.0)

        @rt.function(input_signature=SPEC)
        def call(self, x, training=False):
            return x * self.w + (1.0 if training else 0.0)

    s = Scaler()
    np.testing.assert_array_equal(s.call(rt.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(s.call(rt.constant([1.0]), training=True).numpy(), [3.0])


class _Doubling(rt.layers.Layer):
    @rt.function(input_signature=[rt.TensorSpec([None, 2], rt.float32)])
    def call(self, inputs, training=False):
        return inputs * 2.0 + (0.5 if training else 0.0)


def test_a_layer_call_with_an_input_signature():
    layer = _Doubling()
    x = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(layer(x).numpy(), 2 * x)
    np.testing.assert_array_equal(layer(x, training=True).numpy(), 2 * x + 0.5)
    model = rt.layers.Sequential([_Doubling(), rt.layers.Dense(1)])
    model.compile(rt.optimizers.SGD(0.01), "mse")
    model.fit(x, np.ones((3, 1), np.float32), epochs=1, batch_size=3, verbose=0)
    assert model.predict(x).shape == (3, 1)
