"""The default writer, step and record_if are per thread, as in TensorFlow: threads that each
write inside their own `writer.as_default()` get exactly their own events."""

import threading

import pytest

import runtime as rt
from tests.reliability.test_threads import run_in_threads

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

THREADS, STEPS = 4, 25


def scalars(logdir, tag="value"):
    from tensorboard.util import tensor_util
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"tensors": 0})
    acc.Reload()
    if tag not in acc.Tags()["tensors"]:
        return []
    return [(e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in acc.Tensors(tag)]


def run_threads(target):
    """Runs `target(index, barrier)` in THREADS threads; the barrier lets them meet inside."""
    barrier = threading.Barrier(THREADS)
    run_in_threads(lambda index: target(index, barrier), n=THREADS)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_each_thread_writes_only_into_its_own_writer(tmp_path, compiled):
    writers = [rt.summary.create_file_writer(str(tmp_path / f"w{i}")) for i in range(THREADS)]
    results = [[] for _ in range(THREADS)]

    def write(value):
        return rt.summary.scalar("value", value)

    log = rt.function(write) if compiled else write

    def body(index, barrier):
        with writers[index].as_default(step=0):
            barrier.wait()  # every thread is inside its as_default at once
            for step in range(STEPS):
                rt.summary.experimental.set_step(step)
                results[index].append(log(float(100 * index + step)))
        barrier.wait()  # a thread leaving its block changes nothing for the others

    run_threads(body)
    for w in writers:
        w.close()
    for i in range(THREADS):
        expected = [(s, float(100 * i + s)) for s in range(STEPS)]
        assert scalars(tmp_path / f"w{i}") == expected
        if not compiled:
            assert results[i] == [True] * STEPS


def test_leaving_as_default_in_one_thread_keeps_the_others_recording(tmp_path):
    slow = rt.summary.create_file_writer(str(tmp_path / "slow"))
    quick = rt.summary.create_file_writer(str(tmp_path / "quick"))
    quick_left = threading.Event()
    outcome = {}

    def quick_thread():
        with quick.as_default(step=1):
            rt.summary.scalar("value", 1.0)
        quick_left.set()

    with slow.as_default(step=7):
        t = threading.Thread(target=quick_thread)
        t.start()
        quick_left.wait(30)
        t.join()
        outcome["written"] = rt.summary.scalar("value", 2.0)
        outcome["should"] = rt.summary.should_record_summaries()
    slow.close()
    quick.close()
    assert outcome == {"written": True, "should": True}
    assert scalars(tmp_path / "slow") == [(7, 2.0)]
    assert scalars(tmp_path / "quick") == [(1, 1.0)]


def test_a_new_thread_starts_with_no_default_writer_step_or_condition(tmp_path):
    writer = rt.summary.create_file_writer(str(tmp_path))
    seen = {}

    def other():
        seen["step"] = rt.summary.experimental.get_step()
        seen["should"] = rt.summary.should_record_summaries()
        seen["written"] = rt.summary.scalar("value", 3.0, step=0)

    with writer.as_default(step=5), rt.summary.record_if(False):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    writer.close()
    assert seen == {"step": None, "should": False, "written": False}
    assert scalars(tmp_path) == []


@pytest.mark.parametrize("call", [
    lambda w: rt.summary.create_file_writer("logs", max_queu=5),
    lambda w: rt.summary.histogram("h", [1.0], step=0, bucket=3),
    lambda w: rt.summary.scalar("s", 1.0, stp=0),
    lambda w: rt.summary.text("t", "x", step=0, descripton="d"),
    lambda w: rt.summary.image("i", [[[[0]]]], step=0, max_output=1),
    lambda w: rt.summary.flush(writr=w),
    lambda w: w.as_default(stpe=1),
    lambda w: w.set_as_default(stpe=1),
    lambda w: rt.summary.trace_on(graphs=True),
    lambda w: rt.summary.experimental.set_step(stepp=1),
], ids=["create_file_writer", "histogram", "scalar", "text", "image", "flush", "as_default",
        "set_as_default", "trace_on", "set_step"])
def test_keyword_typos_get_a_suggestion(tmp_path, call):
    writer = rt.summary.create_file_writer(str(tmp_path))
    with pytest.raises(TypeError, match=r"unexpected keyword argument .*did you mean"):
        call(writer)
    writer.close()
