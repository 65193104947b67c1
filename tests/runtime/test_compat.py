"""rt.compat: TensorFlow 2's tf.compat helpers (results as TensorFlow 2.21 gives them) and the
rt.compat.v1 module that imports but names TensorFlow 1's API as not provided."""

import pathlib

import pytest

import runtime as rt


def test_text_and_bytes_helpers_match_tensorflow():
    # the values TensorFlow 2.21 returns for the same calls
    assert rt.compat.as_bytes("é") == b"\xc3\xa9"
    assert rt.compat.as_bytes(bytearray(b"a")) == b"a"
    assert rt.compat.as_str(b"\xc3\xa9") == "é" and rt.compat.as_text("x") == "x"
    assert rt.compat.as_bytes("é", encoding="latin-1") == b"\xe9"
    assert rt.compat.as_str_any(3) == "3" and rt.compat.as_str_any(b"b") == "b"
    for bad in (3, None):
        with pytest.raises(TypeError):
            rt.compat.as_bytes(bad)
        with pytest.raises(TypeError):
            rt.compat.as_str(bad)


def test_path_dimension_and_type_tuples_match_tensorflow():
    assert rt.compat.path_to_str(pathlib.Path("/a/b")) == "/a/b"
    assert rt.compat.path_to_str(3) == 3
    assert rt.compat.dimension_value(rt.TensorShape([5, None])[0]) == 5
    assert rt.compat.dimension_value(None) is None
    assert isinstance(True, rt.compat.integral_types)
    assert isinstance(1.5, rt.compat.real_types) and not isinstance(1.5, rt.compat.integral_types)
    assert isinstance(1j, rt.compat.complex_types)
    assert rt.compat.bytes_or_text_types == (bytes, str)


def test_v1_imports_and_its_names_say_they_are_not_provided():
    import runtime.compat.v1 as tf1
    assert rt.compat.v1 is tf1
    with pytest.raises(AttributeError, match=r"rt.compat.v1.Session: TensorFlow 1's API"):
        tf1.Session  # noqa: B018
    with pytest.raises(AttributeError, match="placeholder"):
        tf1.placeholder  # noqa: B018
    with pytest.raises(TypeError, match="encodin"):
        rt.compat.as_bytes("a", encodin="utf-8")


def test_v1_names_tensorflow_2_programs_still_use():
    import logging

    import runtime.compat.v1 as tf1
    log = tf1.logging
    # TensorFlow 2.21's values: the levels, WARN by default, ERROR after set_verbosity(ERROR)
    assert (log.DEBUG, log.INFO, log.WARN, log.ERROR, log.FATAL) == (10, 20, 30, 40, 50)
    logger = logging.getLogger("runtime")
    before = logger.level
    try:
        log.set_verbosity(log.ERROR)
        assert log.get_verbosity() == 40 and logger.getEffectiveLevel() == 40
    finally:
        logger.setLevel(before)
    assert tf1.enable_eager_execution() is None and tf1.executing_eagerly() is True
    tf1.set_random_seed(3)
    first = rt.random.uniform([3]).numpy()
    rt.random.set_seed(3)
    assert (rt.random.uniform([3]).numpy() == first).all()   # the same global seed
