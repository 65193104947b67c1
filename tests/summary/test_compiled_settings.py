"""Summaries inside compiled functions: the writer, step and record_if settings made inside
the traced body are part of the graph; those in effect around a call are read at that call.
Saved functions write to the default writer where they are called. Events are read back with
TensorBoard's own event reader."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import runtime as rt

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

TIERS = [False, True]


def scalars(logdir, tag):
    from tensorboard.util import tensor_util
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"tensors": 0})
    acc.Reload()
    if tag not in acc.Tags()["tensors"]:
        return []
    return [(e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in acc.Tensors(tag)]


@pytest.fixture(autouse=True)
def no_default_step():
    yield
    rt.summary.experimental.set_step(None)


@pytest.mark.parametrize("jit_compile", TIERS)
def test_step_and_writer_from_as_default_inside_the_body(tmp_path, jit_compile):
    inner = rt.summary.create_file_writer(str(tmp_path / "inner"))
    other = rt.summary.create_file_writer(str(tmp_path / "other"))

    @rt.function(jit_compile=jit_compile)
    def f(x):
        with inner.as_default(step=7):
            rt.summary.scalar("x", x * 2.0)
        return x

    f(rt.constant(1.0))
    with other.as_default(step=100):  # the settings made inside the body win
        f(rt.constant(2.0))
    inner.close()
    other.close()
    assert f.experimental_get_tracing_count() == 1
    assert scalars(tmp_path / "inner", "x") == [(7, 2.0), (7, 4.0)]
    assert scalars(tmp_path / "other", "x") == []


@pytest.mark.parametrize("jit_compile", TIERS)
def test_a_variable_step_set_inside_the_body_is_read_at_each_call(tmp_path, jit_compile):
    w = rt.summary.create_file_writer(str(tmp_path))
    counter = rt.Variable(0, dtype=rt.int64)

    @rt.function(jit_compile=jit_compile)
    def f(x):
        counter.assign_add(1)
        with w.as_default(step=counter):
            rt.summary.scalar("x", x)
        return x

    for v in (0.5, 1.5, 2.5):
        f(rt.constant(v))
    w.close()
    assert scalars(tmp_path, "x") == [(1, 0.5), (2, 1.5), (3, 2.5)]


@pytest.mark.parametrize("jit_compile", TIERS)
def test_set_step_inside_the_body_is_a_constant(tmp_path, jit_compile):
    w = rt.summary.create_file_writer(str(tmp_path))

    @rt.function(jit_compile=jit_compile)
    def f(x):
        rt.summary.experimental.set_step(3)
        rt.summary.scalar("x", x)
        return x

    with w.as_default():
        f(rt.constant(1.0))
        rt.summary.experimental.set_step(50)
        f(rt.constant(2.0))
    w.close()
    assert scalars(tmp_path, "x") == [(3, 1.0), (3, 2.0)]


@pytest.mark.parametrize("jit_compile", TIERS)
def test_call_time_writer_and_step(tmp_path, jit_compile):
    first = rt.summary.create_file_writer(str(tmp_path / "first"))
    second = rt.summary.create_file_writer(str(tmp_path / "second"))

    @rt.function(jit_compile=jit_compile)
    def f(x):
        rt.summary.scalar("x", x + 1.0)
        return x

    with first.as_default():
        for step in range(3):
            rt.summary.experimental.set_step(step)
            f(rt.constant(float(step)))
    with second.as_default(step=10):  # the writer and step in effect at this call
        f(rt.constant(5.0))
    f(rt.constant(6.0))  # no default writer: nothing is recorded
    first.close()
    second.close()
    assert f.experimental_get_tracing_count() == 1
    assert scalars(tmp_path / "first", "x") == [(0, 1.0), (1, 2.0), (2, 3.0)]
    assert scalars(tmp_path / "second", "x") == [(10, 6.0)]


@pytest.mark.parametrize("jit_compile", TIERS)
def test_record_if_inside_the_body_and_around_the_call(tmp_path, jit_compile):
    w = rt.summary.create_file_writer(str(tmp_path))
    calls = []

    def every_other() -> bool:
        calls.append(1)
        return len(calls) % 2 == 1

    @rt.function(jit_compile=jit_compile)
    def f(x):
        with rt.summary.record_if(False):
            rt.summary.scalar("never", x)
        with rt.summary.record_if(True):
            rt.summary.scalar("always", x)
        with rt.summary.record_if(every_other):
            rt.summary.scalar("odd", x)
        return x

    with w.as_default():
        for i in range(4):
            rt.summary.experimental.set_step(i)
            f(rt.constant(float(i)))
        with rt.summary.record_if(False):  # around the call: nothing is recorded
            f(rt.constant(9.0))
    w.close()
    assert scalars(tmp_path, "never") == []
    assert scalars(tmp_path, "always") == [(i, float(i)) for i in range(4)]
    assert scalars(tmp_path, "odd") == [(0, 0.0), (2, 2.0)]


def _module_with_summary():
    counter = rt.Variable(0, dtype=rt.int64)

    class Logged(rt.Module):
        def __init__(self):
            super().__init__()
            self.counter = counter

        @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
        def f(self, x):
            self.counter.assign_add(1)
            rt.summary.scalar("loss", x * 3.0, step=self.counter)
            rt.summary.text("note", "saved", step=self.counter)
            return x * 2.0

    return Logged()


def test_saved_function_writes_to_the_default_writer_where_called(tmp_path):
    traced = rt.summary.create_file_writer(str(tmp_path / "traced"))
    module = _module_with_summary()

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def g(x):
        with traced.as_default(step=4):  # a captured writer: saved writing to the default
            rt.summary.scalar("g", x)
        return x

    module.g = g
    with traced.as_default():
        module.f(rt.constant(1.0))
    rt.saved_model.save(module, str(tmp_path / "saved"))
    loaded = rt.saved_model.load(str(tmp_path / "saved"))
    w2 = rt.summary.create_file_writer(str(tmp_path / "w2"))
    with w2.as_default():
        assert float(loaded.f(rt.constant(2.0))) == 4.0
        loaded.f(rt.constant(3.0))
        loaded.g(rt.constant(5.0))
    w2.close()
    traced.close()
    assert scalars(tmp_path / "w2", "loss") == [(2, 6.0), (3, 9.0)]
    assert scalars(tmp_path / "w2", "g") == [(4, 5.0)]
    assert scalars(tmp_path / "traced", "loss") == [(1, 3.0)]
    acc = event_accumulator.EventAccumulator(str(tmp_path / "w2"), size_guidance={"tensors": 0})
    acc.Reload()
    assert [t.tensor_proto.string_val for t in acc.Tensors("note")] == [[b"saved"]] * 2


def test_a_saved_function_with_a_summary_loads_in_a_fresh_process(tmp_path):
    module = _module_with_summary()
    rt.saved_model.save(module, str(tmp_path / "saved"))
    script = (
        "import sys, runtime as rt\n"
        "m = rt.saved_model.load(sys.argv[1])\n"
        "w = rt.summary.create_file_writer(sys.argv[2])\n"
        "with w.as_default():\n"
        "    for v in (1.0, 2.0):\n"
        "        m.f(rt.constant(v))\n"
        "w.close()\n")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "saved"),
                           str(tmp_path / "logs")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert scalars(tmp_path / "logs", "loss") == [(1, 3.0), (2, 6.0)]


def test_a_python_record_if_condition_cannot_be_saved(tmp_path):
    module = rt.Module()

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(x):
        with rt.summary.record_if(lambda: True):
            rt.summary.scalar("x", x, step=0)
        return x

    module.f = f
    with pytest.raises(ValueError, match="record_if with a Python callable"):
        rt.saved_model.save(module, str(tmp_path / "saved"))


NUMBA_CACHING = """
import json, sys, uuid, warnings
import runtime as rt
rt.config.experimental.set_jit_wait_for_compile(True)  # the kernel compiles in this process

logdir = sys.argv[1]
tag = f"x_{uuid.uuid4().hex[:12]}"  # a new kernel source: Numba compiles it here


def make():
    @rt.function(jit_compile=True)
    def f(x):
        rt.summary.scalar(tag, x * 2.0, step=1)
        return x + 1.0
    return f


compiled = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for name in ("a", "b"):
        w = rt.summary.create_file_writer(f"{logdir}/{name}")
        f = make()
        with w.as_default():
            f(rt.constant(1.0 if name == "a" else 2.0))
        w.close()
        compiled.append(f.get_concrete_function(rt.constant(0.0)).compiled)
print(json.dumps({
    "tag": tag,
    "cannot_cache": [str(w.message) for w in caught if "Cannot cache" in str(w.message)],
    "same_source": compiled[0].source == compiled[1].source,
    "same_kernel": compiled[0].kernel is compiled[1].kernel,
    "overloads": len(compiled[0].kernel.overloads),
}))
"""


def test_the_numba_tier_caches_the_kernel_and_shares_it_across_writers(tmp_path):
    # in a process at Numba's own optimisation level, as users run it (the suite compiles
    # at NUMBA_OPT=0, where Numba cannot cache kernels that read some globals)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    run = subprocess.run([sys.executable, "-c", NUMBA_CACHING, str(tmp_path)], env=env,
                         capture_output=True, text=True, check=True)
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["cannot_cache"] == []
    assert found["same_source"] and found["same_kernel"] and found["overloads"] == 1
    assert scalars(tmp_path / "a", found["tag"]) == [(1, 2.0)]
    assert scalars(tmp_path / "b", found["tag"]) == [(1, 4.0)]


def test_text_of_python_strings_keeps_its_shape(tmp_path):
    w = rt.summary.create_file_writer(str(tmp_path))

    @rt.function
    def f(x):
        rt.summary.text("grid", [["a", "b"], ["c", "d"]], step=0)
        return x

    with w.as_default():
        f(rt.constant(1.0))
    w.close()
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0})
    acc.Reload()
    (event,) = acc.Tensors("grid")
    proto = event.tensor_proto
    assert [d.size for d in proto.tensor_shape.dim] == [2, 2]
    assert np.array(proto.string_val).tolist() == [b"a", b"b", b"c", b"d"]
