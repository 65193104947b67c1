"""`Model.compile(jit_compile="auto")`, Keras 3's default: the tier docs/tiers.md recommends
for the model's layers when its package is installed (today the NumPy tier for every layer
family, as Keras 3 resolves "auto" on TensorFlow's CPU), the NumPy tier otherwise."""

import logging
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import keras
from runtime.layers import jit_choice

L = keras.layers
X = np.linspace(-1, 1, 8 * 5 * 3, dtype=np.float32).reshape(8, 5, 3)
Y = np.linspace(0, 1, 8, dtype=np.float32).reshape(8, 1)


def _recurrent(layer=L.LSTM):
    return keras.Sequential([keras.Input((5, 3)), layer(4, kernel_initializer="ones",
                                                        recurrent_initializer="zeros"),
                             L.Dense(1, kernel_initializer="ones")])


def _dense():
    return keras.Sequential([keras.Input((5, 3)), L.Flatten(),
                             L.Dense(1, kernel_initializer="ones")])


def _installed(*tiers):
    return lambda tier: tier in tiers


@pytest.fixture
def tiered():
    """Kernels compile in the background (the default outside the tests), and no worker
    outlives the test."""
    from runtime.backends.numba import tiered as _tiered
    waiting = rt.config.experimental.get_jit_wait_for_compile()
    rt.config.experimental.set_jit_wait_for_compile(False)
    yield
    rt.config.experimental.set_jit_wait_for_compile(waiting)
    _tiered._stop_workers()


@pytest.mark.parametrize("make", [_recurrent, lambda: _recurrent(L.GRU),
                                  lambda: keras.Sequential([keras.Input((5, 3)),
                                                            L.Bidirectional(L.SimpleRNN(2)),
                                                            L.Dense(1)])],
                         ids=["lstm", "gru", "bidirectional"])
def test_auto_picks_the_numpy_tier_for_recurrent_layers_with_the_compilers_installed(
        monkeypatch, make, tiered):
    # a Keras RNN is one staged loop, slower as a Numba kernel than on the NumPy tier
    monkeypatch.setattr(jit_choice, "backend_installed", _installed("xla", "numba"))
    model = make()
    assert model.jit_compile is False  # before compile: what "auto" would pick
    model.compile("sgd", "mse")  # "auto" is the default
    assert model.jit_compile is False
    assert model._train_step.step.jit_compile is False


def test_auto_picks_the_numpy_tier_when_functions_wait_for_their_kernels(monkeypatch):
    monkeypatch.setattr(jit_choice, "backend_installed", _installed("xla", "numba"))
    rt.config.experimental.set_jit_wait_for_compile(True)  # as tests/conftest.py sets it
    model = _recurrent()
    model.compile("sgd", "mse")
    assert model.jit_compile is False


def test_auto_picks_the_numpy_tier_without_numba(monkeypatch, tiered):
    monkeypatch.setattr(jit_choice, "backend_installed", _installed("xla"))
    model = _recurrent()
    model.compile("sgd", "mse", jit_compile="auto")
    assert model.jit_compile is False
    assert model._train_step.step.jit_compile is False


def test_auto_picks_the_numpy_tier_for_models_without_recurrent_layers(monkeypatch, tiered):
    monkeypatch.setattr(jit_choice, "backend_installed", _installed("xla", "numba"))
    model = _dense()
    model.compile("sgd", "mse")
    assert model.jit_compile is False
    assert model._train_step.step.jit_compile is False


def test_backend_installed_follows_the_importable_packages(monkeypatch, tiered):
    import importlib.util
    found = {"jax"}
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name in found else None)
    assert jit_choice.backend_installed("xla") and not jit_choice.backend_installed("numba")
    found.add("numba")
    assert jit_choice.backend_installed("numba")


def _train(jit_compile, monkeypatch, installed=("xla", "numba")):
    monkeypatch.setattr(jit_choice, "backend_installed", _installed(*installed))
    model = _recurrent()
    model.compile(keras.optimizers.SGD(0.1), "mse", jit_compile=jit_compile)
    history = model.fit(X, Y, epochs=2, batch_size=3, shuffle=False, verbose=0)
    result = history.history["loss"] + [model.evaluate(X, Y, verbose=0)]
    return result + list(np.ravel(model.predict(X[:3], verbose=0))), model


@pytest.mark.parametrize("installed", [("xla", "numba"), ()], ids=["numba", "no-numba"])
def test_auto_trains_as_the_numpy_tier(monkeypatch, tiered, installed):
    if installed:
        pytest.importorskip("numba")
    got, model = _train("auto", monkeypatch, installed)
    want, _ = _train(False, monkeypatch, installed)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    assert model.jit_compile is False


def test_a_step_the_picked_tier_refuses_runs_on_the_numpy_tier(monkeypatch, caplog, tiered):
    """The fallback, forced: the picked tier raises JitCompileError on the first call."""
    from runtime.backends import JitCompileError

    class Refusing:
        def __call__(self, *args):
            raise JitCompileError("no such lowering (test)")

        def get_concrete_function(self, *args):
            raise JitCompileError("no such lowering (test)")

    import runtime.layers.training as training
    real = training.function

    def function(fn, reduce_retracing, jit_compile):
        return Refusing() if jit_compile is True else real(
            fn, reduce_retracing=reduce_retracing, jit_compile=jit_compile)

    monkeypatch.setattr(training, "function", function)
    monkeypatch.setattr(jit_choice, "recommended_tier", lambda model: True)  # a compiler tier
    with caplog.at_level(logging.INFO, logger="runtime.function"):
        got, model = _train("auto", monkeypatch)
    assert model.jit_compile is False
    assert "refused a step function" in caplog.text
    monkeypatch.setattr(training, "function", real)
    want, _ = _train(False, monkeypatch)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_an_explicit_tier_is_not_replaced(monkeypatch, tiered):
    monkeypatch.setattr(jit_choice, "backend_installed", _installed("xla", "numba"))
    model = _dense()  # "auto" would pick the NumPy tier
    model.compile("sgd", "mse", jit_compile=True)
    assert model.jit_compile is True
    assert model._train_step.step.jit_compile is True
    lstm = _recurrent()  # "auto" would pick the Numba tier
    lstm.compile("sgd", "mse", jit_compile=False)
    assert lstm.jit_compile is False
    assert lstm._train_step.step.jit_compile is False


@pytest.mark.parametrize("value", ["bogus", "XLA", 1, 0.5, "Auto"])
def test_a_bad_value_raises_naming_it(value):
    model = _dense()
    with pytest.raises(ValueError, match=f"jit_compile={value!r}"):
        model.compile("sgd", "mse", jit_compile=value)


def test_run_eagerly_drops_a_compiler_tier_with_a_warning_as_keras():
    model = _recurrent()
    with pytest.warns(UserWarning, match="run_eagerly"):
        model.compile("sgd", "mse", jit_compile=True, run_eagerly=True)
    assert model.jit_compile is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.compile("sgd", "mse", run_eagerly=True)  # "auto": False, silently
    assert model.jit_compile is False


@pytest.mark.parametrize("value", [None, False, True, "numba"])  # "xla" imports JAX
def test_explicit_values_are_reported_as_given(value):
    model = _dense()
    model.compile("sgd", "mse", jit_compile=value)
    assert model.jit_compile is value or model.jit_compile == value


def test_setting_jit_compile_after_construction_names_compile():
    model = _dense()
    with pytest.raises(AttributeError, match="compile"):
        model.jit_compile = True
