"""rt.print shows the values of tensors nested in lists, tuples and dicts, eagerly, inside
rt.function (at run time) and in a saved function; Python's own formatting of the container,
with each tensor shown as NumPy shows its value, is the oracle."""

import collections
import io

import numpy as np

import runtime as rt

Pair = collections.namedtuple("Pair", "a b")


def show(x, y):
    rt.print(x, [x, 2], {"k": y, "n": "s"}, (y,), Pair(x, 3), [[y], ()], "end", output_stream=OUT)
    return x + 1


OUT = io.StringIO()


def _expected(x, y):
    xs, ys = str(np.asarray(x)), str(np.asarray(y))
    return (f"{xs} [{xs}, 2] {{'k': {ys}, 'n': 's'}} ({ys},) Pair(a={xs}, b=3) [[{ys}], ()] "
            "end\n")


def _printed(run, *args):
    OUT.seek(0)
    OUT.truncate()
    run(*args)
    return OUT.getvalue()


def test_nested_tensors_print_their_values_eagerly_and_staged():
    x, y = np.array([1, 2], np.int32), np.float32(0.5)
    staged = rt.function(show)
    eager = _printed(show, rt.constant(x), rt.constant(y))
    assert eager == _expected(x, y)
    assert _printed(staged, rt.constant(x), rt.constant(y)) == eager
    x2 = np.array([7, 8], np.int32)  # a second run of the same graph prints the new values
    assert _printed(staged, rt.constant(x2), rt.constant(y)) == _expected(x2, y)
    assert staged.experimental_get_tracing_count() == 1


def test_containers_without_tensors_print_as_before():
    out = io.StringIO()
    rt.print([1, "a"], {"k": (2,)}, output_stream=out)
    assert out.getvalue() == "[1, 'a'] {'k': (2,)}\n"


def test_a_saved_function_prints_nested_values(capsys):
    @rt.function(input_signature=[rt.TensorSpec([2], rt.int32)])
    def f(x):
        rt.print("x:", [x, {"twice": x * 2}])
        return x

    loaded = rt.saved_model.loads(rt.saved_model.dumps(f))
    capsys.readouterr()
    loaded(np.array([3, 4], np.int32))
    assert capsys.readouterr().out == "x: [[3 4], {'twice': [6 8]}]\n"
