"""Behaviours TensorFlow 2 programs rely on: the exception classes they catch and the
names they reach for, each checked the way such a program uses it."""

from __future__ import annotations

import pytest

import autograph as ag
import runtime as rt


def test_a_signature_dtype_mismatch_is_an_invalid_argument_error_and_a_type_error():
    @rt.function(input_signature=[rt.TensorSpec([], rt.string)])
    def double(a):
        return a + a

    with pytest.raises(rt.errors.InvalidArgumentError):
        double(rt.constant(1))
    with pytest.raises(TypeError):
        double(rt.constant(1))


def test_a_tensor_leaked_from_another_graph_is_a_type_error():
    leaked = []

    @rt.function
    def leaky(a):
        leaked.append(a + 1)
        return a + 2

    @rt.function
    def captures(b):
        return b + leaked[0]

    assert int(leaky(rt.constant(1))) == 3
    with pytest.raises(TypeError, match="another graph"):
        captures(rt.constant(2))
    with pytest.raises(ValueError):
        captures(rt.constant(3))


def test_tf_autograph_is_the_converter():
    def f(x):
        if x > 0:
            x = x * 2
        return x

    assert rt.autograph is ag
    assert "ag__.if_stmt" in rt.autograph.to_code(f)


def test_a_random_function_as_a_kernel_initializer():
    rt.random.set_seed(0)
    layer = rt.keras.layers.Dense(3, kernel_initializer=rt.random.normal,
                                  bias_initializer=rt.zeros)
    layer(rt.ones([2, 4]))
    assert layer.kernel.shape == rt.TensorShape([4, 3]) and layer.kernel.dtype is rt.float32
    assert layer.kernel.numpy().std() > 0.3           # standard normal draws, not a constant


def test_compile_takes_run_eagerly_jit_compile_and_steps_per_execution():
    import numpy as np
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(32, 2)
    y = x @ np.float32([[2.0], [-1.0]])
    losses = {}
    for options in ({}, {"run_eagerly": True}, {"jit_compile": True},
                    {"steps_per_execution": 4}):
        model = rt.keras.Sequential([rt.keras.layers.Dense(1, kernel_initializer="zeros")])
        model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse", **options)
        history = model.fit(x, y, epochs=3, batch_size=8, verbose=0, shuffle=False)
        losses[str(options)] = history.history["loss"]
    first = next(iter(losses.values()))
    for run in losses.values():
        np.testing.assert_allclose(run, first, rtol=1e-5)
    assert first[-1] < first[0]
    with pytest.raises(TypeError, match="run_eagerly"):
        rt.keras.Sequential([rt.keras.layers.Dense(1)]).compile(
            optimizer="sgd", loss="mse", run_eagerlly=True)


def test_a_concrete_function_takes_only_its_tensor_arguments():
    class Model(rt.Module):
        def __init__(self):
            super().__init__()
            self.weight = rt.Variable(2.0)
            self.bias = rt.Variable(0.0)

    def evaluate(model, x):
        return model.weight * x + model.bias

    model = Model()
    x = rt.constant(10.0)
    concrete = rt.function(evaluate).get_concrete_function(model, x)
    assert float(concrete(x)) == 20.0                 # the model was bound when tracing
    assert float(concrete(model, x)) == 20.0          # the full signature works too
    model.bias.assign(5.0)
    assert float(concrete(rt.constant(1.0))) == 7.0   # variables are read at each call
    with pytest.raises(TypeError, match="missing"):
        concrete()


def test_a_module_function_traced_once_is_saved_as_traced(tmp_path):
    class Scale(rt.Module):
        def __init__(self, value):
            super().__init__()
            self.weight = rt.Variable(value)

        @rt.function
        def multiply(self, x):
            return x * self.weight

    module = Scale(3)
    with pytest.raises(ValueError, match="call it once before saving"):
        rt.saved_model.save(module, str(tmp_path / "untraced"))
    module.multiply(rt.constant([1, 2, 3]))
    rt.saved_model.save(module, str(tmp_path / "saved"))
    loaded = rt.saved_model.load(str(tmp_path / "saved"))
    assert loaded.multiply(rt.constant([4, 5, 6])).numpy().tolist() == [12, 15, 18]


def test_a_module_function_traced_several_times_saves_every_trace(tmp_path):
    class Scale(rt.Module):
        def __init__(self):
            super().__init__()
            self.weight = rt.Variable(2.0)

        @rt.function
        def __call__(self, x):
            return x * self.weight

    module = Scale()
    vector, matrix = rt.constant([1.0, 2.0]), rt.constant([[1.0], [3.0]])
    module(vector)
    module(matrix)
    rt.saved_model.save(module, str(tmp_path / "saved"))
    loaded = rt.saved_model.load(str(tmp_path / "saved"))
    assert loaded(rt.constant([3.0, 4.0])).numpy().tolist() == [6.0, 8.0]
    assert loaded(rt.constant([[5.0], [6.0]])).numpy().tolist() == [[10.0], [12.0]]
    with pytest.raises(TypeError, match="traced for other inputs"):
        loaded(rt.constant(1.0))
    rt.saved_model.save(loaded, str(tmp_path / "again"))          # a loaded object saves again
    again = rt.saved_model.load(str(tmp_path / "again"))
    assert again(rt.constant([[1.0], [1.5]])).numpy().tolist() == [[2.0], [3.0]]
