"""Errors from compiled functions end in the user's file and hide the library's frames."""

import sys
import traceback

import pytest

import runtime as rt
from runtime.traceback_utils import is_internal_file


def _frames(exc):
    frames = [(f.filename, f.name) for f in traceback.extract_tb(exc.__traceback__)]
    if sys.version_info < (3, 11):  # Python 3.10 keeps the frame of the re-raising entry point
        entry_points = {("polymorphic.py", "__call__"), ("polymorphic.py", "get_concrete_function"),
                        ("api.py", "wrapper")}
        frames = [f for f in frames if (f[0].rsplit("/", 1)[-1], f[1]) not in entry_points]
    return frames


def _one_branch(x):
    if x > 0:
        y = x
    return y  # noqa: F821 - defined in one branch only, on purpose


def _shape_mismatch(x):
    return x * rt.constant([1.0, 2.0, 3.0])


@pytest.fixture
def unfiltered():
    rt.debugging.disable_traceback_filtering()
    yield
    rt.debugging.enable_traceback_filtering()


@pytest.mark.parametrize("fn, arg", [(_one_branch, rt.constant(1.0)),
                                     (_shape_mismatch, rt.constant([1.0, 2.0]))])
def test_traceback_ends_in_user_code(fn, arg):
    with pytest.raises(Exception) as info:
        rt.function(fn)(arg)
    frames = _frames(info.value)
    assert frames[-1] == (__file__, fn.__name__)
    assert [f for f in frames if is_internal_file(f[0])] == []


def test_get_concrete_function_is_filtered():
    with pytest.raises(ValueError) as info:
        rt.function(_shape_mismatch).get_concrete_function(rt.TensorSpec([2]))
    frames = _frames(info.value)
    assert frames[-1] == (__file__, "_shape_mismatch")
    assert [f for f in frames if is_internal_file(f[0])] == []


def test_disabled_filtering_keeps_library_frames(unfiltered):
    assert not rt.debugging.is_traceback_filtering_enabled()
    with pytest.raises(Exception) as info:
        rt.function(_one_branch)(rt.constant(1.0))
    files = [f for f, _ in _frames(info.value)]
    assert any(f.endswith("polymorphic.py") for f in files)
    assert any("autograph" in f and f.endswith(".py") and is_internal_file(f) for f in files)


def test_filtering_keeps_message_and_type():
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        rt.function(_shape_mismatch)(rt.constant([1.0, 2.0]))


def test_user_frames_between_library_frames_are_kept():
    def outer(x):
        return inner(x)

    @rt.function
    def inner(x):
        return _shape_mismatch(x)

    with pytest.raises(ValueError) as info:
        rt.function(outer)(rt.constant([1.0, 2.0]))
    names = [name for f, name in _frames(info.value) if f == __file__]
    assert names[-3:] == ["outer", "inner", "_shape_mismatch"]


def test_to_graph_errors_hide_the_runtime_frames_too():
    import autograph as ag
    from runtime import autograph_backend  # noqa: F401 - registers the runtime with autograph
    with pytest.raises(ValueError) as info:
        ag.to_graph(_shape_mismatch)(rt.constant([1.0, 2.0]))
    frames = _frames(info.value)
    assert frames[-1] == (__file__, "_shape_mismatch")
    assert [f for f in frames if is_internal_file(f[0])] == []


def test_errors_raised_while_the_graph_runs_end_at_the_users_call():
    @rt.function
    def checked_sqrt(x):
        assert x >= 0, "x must not be negative"
        return rt.sqrt(x)

    checked_sqrt(rt.constant(4.0))  # traced; the next call runs the compiled caller
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        checked_sqrt(rt.constant(-4.0))
    frames = _frames(info.value)
    assert frames == [(__file__, "test_errors_raised_while_the_graph_runs_end_at_the_users_call")]
