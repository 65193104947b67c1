"""Every public name the seed defines is reachable at `rt.*` and also where TensorFlow 2.21
exports it (as recorded from `dir(tf...)` of TensorFlow 2.21), so that a program calling
`tf.config.experimental_run_functions_eagerly(True)` runs with `import runtime as tf`."""

import warnings

import pytest

import runtime as rt

SEED_NAMES = ["function", "defun", "defun_with_attributes", "register", "add_function_callback",
              "remove_function_callback", "clear_function_callbacks", "run_functions_eagerly",
              "functions_run_eagerly", "experimental_run_functions_eagerly",
              "experimental_functions_run_eagerly"]

# TensorFlow 2.21: where each of those names is exported (defun, register and the callbacks
# are not exported by TensorFlow 2; tf.compat is not offered here)
TENSORFLOW_EXPORTS = {
    "function": ["tf"],
    "run_functions_eagerly": ["tf.config"],
    "functions_run_eagerly": ["tf.config"],
    "experimental_run_functions_eagerly": ["tf.config"],
    "experimental_functions_run_eagerly": ["tf.config"],
}


def _namespace(path):
    namespace = rt
    for part in path.split(".")[1:]:
        namespace = getattr(namespace, part)
    return namespace


@pytest.mark.parametrize("name", SEED_NAMES)
def test_every_seed_name_is_at_rt(name):
    assert callable(getattr(rt, name))


@pytest.mark.parametrize("name, space", [(name, space) for name, spaces in TENSORFLOW_EXPORTS.items()
                                         for space in spaces])
def test_every_seed_name_is_where_tensorflow_exports_it(name, space):
    assert callable(getattr(_namespace(space), name)), f"{space}.{name}"


def test_the_config_switches_are_the_seed_switch_and_warn_at_the_callers_line():
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rt.config.experimental_run_functions_eagerly(True)
            line = test_the_config_switches_are_the_seed_switch_and_warn_at_the_callers_line
            first = line.__code__.co_firstlineno
            assert rt.functions_run_eagerly() is True
            assert rt.config.functions_run_eagerly() is True
            assert rt.config.experimental_functions_run_eagerly() is True
        traced = []

        @rt.function
        def f(x):
            traced.append(1)
            return x + 1
        f(rt.constant(1.0))
        f(rt.constant(2.0))
        assert len(traced) == 2  # eager: the Python body runs at every call
    finally:
        rt.config.run_functions_eagerly(False)
    assert rt.experimental_functions_run_eagerly() is False
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert [str(w.message).split(" ")[0] for w in deprecations] == [
        "experimental_run_functions_eagerly", "experimental_functions_run_eagerly"]
    assert all(w.filename == __file__ and w.lineno > first for w in deprecations)
