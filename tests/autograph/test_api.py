"""The public API: to_graph, to_code, do_not_convert, experimental, set_verbosity."""

from __future__ import annotations

import functools
import linecache
import logging
import threading

import pytest

import autograph as ag
import runtime as rt
from autograph.impl import conversion, logs


def test_exports():
    for name in ("to_graph", "to_code", "do_not_convert", "experimental", "set_verbosity"):
        assert hasattr(ag, name)
    assert ag.experimental.do_not_convert is ag.do_not_convert
    assert callable(ag.experimental.set_loop_options)
    assert ag.experimental.set_loop_options(maximum_iterations=3) is None
    names = {f.name for f in ag.experimental.Feature}
    assert {"ALL", "ASSERT_STATEMENTS", "BUILTIN_FUNCTIONS", "LISTS", "EQUALITY_OPERATORS"} <= names


def test_autograph_never_imports_runtime():
    import subprocess
    import sys
    code = ("import sys, autograph, autograph.cli; "
            "assert 'runtime' not in sys.modules, sorted(m for m in sys.modules if 'runtime' in m)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(
        __file__).resolve().parents[2]))


class Counter:
    def __init__(self, start):
        self.count = start

    def bump(self, n):
        while n > 0:
            self.count += 1
            n -= 1
        return self.count

    def __call__(self, x):
        if x > self.count:
            return x
        return self.count


def test_bound_methods_and_callable_objects():
    c = Counter(10)
    bumped = ag.to_graph(c.bump)
    assert bumped(3) == 13 and c.count == 13
    assert ag.to_graph(Counter.bump)(Counter(0), 2) == 2
    assert ag.to_graph(c)(20) == 20 and ag.to_graph(c)(1) == 13
    assert "self.count += 1" in ag.to_code(c.bump)


def test_nested_functions_closures_and_nonlocal():
    def make(k):
        total = 0

        def add(x):
            nonlocal total
            if x > 0:
                total += x * k
            return total
        return add

    add = make(3)
    converted = ag.to_graph(add)
    assert converted(2) == 6
    assert add(1) == 9           # the original sees the converted function's write
    assert converted(0) == 9


def test_recursive_function():
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    assert ag.to_graph(fact)(6) == 720


GLOBAL_FACTOR = 2


def uses_global(x):
    return x * GLOBAL_FACTOR


def test_globals_are_read_live():
    global GLOBAL_FACTOR
    f = ag.to_graph(uses_global)
    assert f(3) == 6
    GLOBAL_FACTOR = 5
    try:
        assert f(3) == 15
    finally:
        GLOBAL_FACTOR = 2


def test_decorated_function_drops_the_decorator():
    def shout(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args) * 100
        return wrapper

    @shout
    def small(x):
        if x > 0:
            return 1
        return 2

    assert small(1) == 100
    assert ag.to_graph(small)(1) == 100       # converts the wrapper, which calls the original
    assert "@shout" not in ag.to_code(small.__wrapped__)
    assert ag.to_graph(small.__wrapped__)(1) == 1


def test_default_and_keyword_arguments_are_kept():
    def f(a, b=2, *args, c=3, **kw):
        return a + b + sum(args) + c + sum(kw.values())
    g = ag.to_graph(f)
    assert g(1) == f(1) and g(1, 1, 1, 1, c=0, d=5) == f(1, 1, 1, 1, c=0, d=5)
    assert g.__name__ == "f"


def test_super_in_methods():
    class Base:
        def value(self, x):
            return x + 1

    class Child(Base):
        def value(self, x):
            if x > 0:
                return super().value(x) * 2
            return super().value(x)

    c = Child()
    assert ag.to_graph(c.value)(3) == 8 and ag.to_graph(c.value)(-3) == -2


def test_do_not_convert():
    @ag.do_not_convert
    def raw(x):
        if x > 0:
            return 1
        return 0

    assert ag.to_graph(raw) is raw
    calls = []

    def outer(x):
        calls.append(raw(x))
        return calls[-1]

    assert ag.to_graph(outer)(1) == 1
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError):
        rt.function(outer)(rt.constant(1))


def test_source_from_linecache_like_a_notebook():
    source = "def cell_fn(x):\n    if x > 0:\n        return x\n    return -x\n"
    filename = "<notebook-cell-7>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    f = namespace["cell_fn"]
    assert "ag__.if_stmt" in ag.to_code(f)
    assert ag.to_graph(f)(-4) == 4


def test_function_without_source_runs_unconverted_with_a_warning(caplog):
    namespace: dict = {}
    exec(compile("def hidden(x):\n    return x + 1\n", "<nowhere>", "exec"), namespace)
    hidden = namespace["hidden"]

    def caller(x):
        return hidden(x) * 2

    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert ag.to_graph(caller)(1) == 4
    assert any("hidden" in r.getMessage() and "source" in r.getMessage() for r in caplog.records)
    with pytest.raises(Exception, match="source"):
        ag.to_graph(hidden)


def test_conversion_is_cached_per_code_object(caplog):
    def make(k):
        def f(x):
            if x > 0:
                return x + k
            return k
        return f

    conversion.clear_cache()
    ag.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO, logger="autograph"):
            for k in range(5):
                assert ag.to_graph(make(k))(1) == 1 + k
        converted = [r for r in caplog.records if r.getMessage().startswith("Converted")]
        assert len(converted) == 1
    finally:
        ag.set_verbosity(0)


def test_conversion_is_thread_safe():
    def work(x):
        total = 0
        for i in range(x):
            if i % 2:
                total += i
        return total

    conversion.clear_cache()
    results = []

    def run():
        results.append(ag.to_graph(work)(10))

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [25] * 8


def test_verbosity_and_environment_variable(monkeypatch, caplog, capsys):
    def f(x):
        return x

    monkeypatch.setattr(logs, "_verbosity", None)
    monkeypatch.setenv("AUTOGRAPH_VERBOSITY", "3")
    assert ag.get_verbosity() == 3
    conversion.clear_cache()
    with caplog.at_level(logging.INFO, logger="autograph"):
        ag.to_graph(f)
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("Converted") for m in messages)
    assert any("def f(x):" in m for m in messages)
    ag.set_verbosity(1, alsologtostdout=True)
    assert ag.get_verbosity() == 1          # the call wins over the environment
    conversion.clear_cache()
    ag.to_graph(f)
    assert "Converted" in capsys.readouterr().out
    ag.set_verbosity(0)


def test_optional_features():
    def checks(x, xs):
        assert x > 0
        xs.append(x)
        return x == 1

    default = ag.to_code(checks)
    assert "ag__.assert_stmt" in default and "ag__.list_append" in default
    assert "ag__.eq" not in default
    assert ag.to_code(checks, experimental_optional_features=()) == default
    everything = ag.to_code(checks, experimental_optional_features=ag.experimental.Feature.ALL)
    assert "ag__.eq(x, 1)" in everything
    # explicit features add to the default ones, as in TensorFlow
    plus_eq = ag.to_code(checks, experimental_optional_features=[ag.Feature.EQUALITY_OPERATORS])
    assert "ag__.eq(x, 1)" in plus_eq and "ag__.assert_stmt" in plus_eq
    assert "ag__.list_append" in plus_eq
    for lists in (ag.Feature.LISTS, [ag.Feature.LISTS], (ag.Feature.LISTS,)):
        code = ag.to_code(checks, experimental_optional_features=lists)
        assert code == default
    with pytest.raises(TypeError):
        ag.to_graph(checks, experimental_optional_features=["LISTS"])


def test_recursive_false_does_not_convert_callees():
    def helper(x):
        if x > 0:
            return 1
        return 0

    def caller(x):
        return helper(x)

    assert "converted_call" not in ag.to_code(caller, recursive=False)
    assert ag.to_graph(caller, recursive=False)(1) == 1
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError):
        rt.function(ag.to_graph(caller, recursive=False), autograph=False)(rt.constant(1))


def test_rt_function_passes_autograph_options():
    def f(x):
        assert x > 0
        return x

    bare = rt.function(f, experimental_autograph_options=ag.ConversionOptions(features=frozenset()))
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError):
        bare(rt.constant(1))
    assert rt.function(f)(rt.constant(1)).numpy() == 1
    for extra in ((), ag.Feature.LISTS, [ag.Feature.LISTS], (ag.Feature.EQUALITY_OPERATORS,)):
        g = rt.function(f, experimental_autograph_options=extra)
        assert g(rt.constant(1)).numpy() == 1    # the assertion is still converted


def test_explicit_features_keep_builtins_converted():
    def f(n):
        total = 0
        for i in range(n):
            total += i
        return total

    for extra in (ag.Feature.LISTS, [ag.Feature.LISTS], (ag.Feature.ASSERT_STATEMENTS,)):
        assert rt.function(f, experimental_autograph_options=extra)(rt.constant(4)).numpy() == 6
        assert ag.to_graph(f, experimental_optional_features=extra)(4) == 6


def test_eager_tensors_run_eagerly():
    def f(x):
        if x > 0:
            x = x * 2
        total = 0
        for v in rt.constant([1, 2, 3]):
            total += v
        return x + total

    out = ag.to_graph(f)(rt.constant(3))
    assert out.numpy() == 12


def test_converted_call_api():
    def f(x):
        if x > 0:
            return "pos"
        return "neg"
    assert ag.converted_call(f, 1) == "pos"
    assert ag.converted_call(len, [1, 2]) == 2


def test_nested_generators_and_classes_stay_python():
    def f(n):
        def gen():
            for i in range(n):
                if i % 2:
                    yield i

        class Local:
            def check(self, v):
                return v > 0 and v < 10

        return sum(gen()), Local().check(n)

    assert ag.to_graph(f)(6) == f(6)
    code = ag.to_code(f)
    assert "yield i" in code and "return v > 0 and v < 10" in code


def test_converting_a_converted_function_is_a_no_op():
    def f(x):
        return -x if x < 0 else x
    g = ag.to_graph(f)
    assert ag.to_graph(g) is g


def test_python_while_that_becomes_staged_midway():
    def f(t):
        x = 0
        while x < 10:
            x = x + t
        return x

    g = rt.function(f)
    assert g(rt.constant(3)).numpy() == 12 and g(rt.constant(4)).numpy() == 12
    assert g.experimental_get_tracing_count() == 1


def test_to_code_and_to_graph_of_a_compiled_function_show_its_python_function():
    def clipped(x):
        if x > 1.0:
            x = 1.0
        return x

    compiled = rt.function(clipped)
    assert ag.to_code(compiled) == ag.to_code(clipped)
    assert "def clipped(x)" in ag.to_code(compiled)
    converted = ag.to_graph(compiled)
    assert converted(3.0) == clipped(3.0) == 1.0 and converted(0.5) == 0.5


def test_any_object_with_a_python_function_attribute_converts_as_that_function():
    def double(x):
        return x * 2

    class Compiled:
        python_function = staticmethod(double)

        def __call__(self, x):
            raise AssertionError("the wrapper itself is not converted")

    assert ag.to_code(Compiled()) == ag.to_code(double)
    assert ag.to_graph(Compiled())(4) == 8


def test_to_code_and_to_graph_of_a_compiled_method_convert_the_bound_method():
    class Doubler:
        factor = 2

        @rt.function
        def apply(self, x):
            if x > 0:
                x = x * self.factor
            return x

    doubler = Doubler()
    assert ag.to_code(doubler.apply).startswith("def apply(self, x):")
    assert ag.to_graph(doubler.apply)(3) == 6 and ag.to_graph(doubler.apply)(-1) == -1
