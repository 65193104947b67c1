"""rt.summary and the TensorBoard callback, read back with TensorBoard's own event reader."""

import os

import numpy as np
import pytest

import runtime as rt

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

EVERYTHING = {"tensors": 0}


def read(logdir):
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance=EVERYTHING)
    acc.Reload()
    return acc


def tensors(acc, tag):
    """[(step, value as an array)] of a tag's TF 2 tensor summaries."""
    from tensorboard.util import tensor_util
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def scalars(acc, tag):
    return [(step, float(value)) for step, value in tensors(acc, tag)]


def tags_of(acc, plugin):
    return sorted(tag for tag in acc.Tags()["tensors"]
                  if acc.SummaryMetadata(tag).plugin_data.plugin_name == plugin)


@pytest.fixture
def writer(tmp_path):
    w = rt.summary.create_file_writer(str(tmp_path))
    yield w
    w.close()


def test_eager_scalars_histograms_text_images(writer, tmp_path):
    data = np.random.default_rng(0).normal(size=1000)
    images = np.random.default_rng(1).random((2, 4, 5, 3))
    with writer.as_default():
        for i in range(3):
            assert rt.summary.scalar("loss", rt.constant(0.5 * i), step=i) is True
        rt.summary.histogram("weights", data, step=7, buckets=10)
        rt.summary.text("note", "hello", step=1)
        rt.summary.image("pictures", images, step=2, max_outputs=3)
        rt.summary.image("one", (images[:1] * 255).astype(np.uint8), step=2)
    writer.flush()
    acc = read(tmp_path)
    assert scalars(acc, "loss") == [(0, 0.0), (1, 0.5), (2, 1.0)]
    ((step, buckets),) = tensors(acc, "weights")
    assert step == 7 and buckets.shape == (10, 3) and buckets[:, 2].sum() == 1000
    assert buckets[0, 0] == pytest.approx(data.min()) and buckets[-1, 1] == data.max()
    counts, edges = np.histogram(data, bins=10)
    assert buckets[:, 2].tolist() == counts.tolist()
    np.testing.assert_allclose(buckets[:, 0], edges[:-1])
    (t,) = acc.Tensors("note")
    assert t.step == 1 and t.tensor_proto.string_val == [b"hello"]
    assert tags_of(acc, "images") == ["one", "pictures"]
    ((step, img),) = tensors(acc, "pictures")
    assert step == 2 and img.shape == (4,) and list(img[:2]) == [b"5", b"4"]  # width, height
    pil = pytest.importorskip("PIL.Image")
    import io
    decoded = np.asarray(pil.open(io.BytesIO(img[3])))
    # TensorFlow's convert_image_dtype: x * 255.5, saturated and truncated
    np.testing.assert_array_equal(decoded, np.minimum(images[1] * 255.5, 255).astype(np.uint8))


def test_no_writer_records_nothing_and_the_step_is_needed(writer):
    assert rt.summary.scalar("x", 1.0, step=0) is False
    assert not rt.summary.should_record_summaries()
    with writer.as_default():
        assert rt.summary.should_record_summaries()
        with pytest.raises(ValueError, match="step"):
            rt.summary.scalar("x", 1.0)
        with pytest.raises(ValueError, match="scalar"):
            rt.summary.scalar("x", [1.0, 2.0], step=0)
        with pytest.raises(TypeError, match="name"):
            rt.summary.scalar(3, 1.0, step=0)
    with rt.summary.create_noop_writer().as_default():
        assert rt.summary.scalar("x", 1.0, step=0) is False


def test_default_step_record_if_and_set_as_default(tmp_path):
    w = rt.summary.create_file_writer(str(tmp_path))
    try:
        rt.summary.experimental.set_step(5)
        assert rt.summary.experimental.get_step() == 5
        with w.as_default():
            rt.summary.scalar("a", 1.0)
            with w.as_default(step=9):
                rt.summary.scalar("a", 2.0)
            with rt.summary.record_if(False):
                assert rt.summary.scalar("a", 3.0) is False
            with rt.summary.record_if(lambda: True):
                rt.summary.scalar("a", 4.0, step=11)
        w.flush()
    finally:
        rt.summary.experimental.set_step(None)
        w.close()
    assert scalars(read(tmp_path), "a") == [(5, 1.0), (9, 2.0), (11, 4.0)]


@pytest.mark.parametrize("jit_compile", [False, True])
def test_compiled_function_writes_at_every_call(tmp_path, jit_compile):
    w = rt.summary.create_file_writer(str(tmp_path))

    @rt.function(jit_compile=jit_compile)
    def step_fn(x, step):
        rt.summary.scalar("value", x * 2.0, step=step)
        rt.summary.histogram("spread", rt.ones([4]) * x, step=step)
        return x + 1.0

    with w.as_default():
        for i in range(5):
            step_fn(rt.constant(float(i)), rt.constant(i, rt.int64))
    w.close()
    assert step_fn.experimental_get_tracing_count() == 1
    acc = read(tmp_path)
    assert scalars(acc, "value") == [(i, 2.0 * i) for i in range(5)]
    spread = tensors(acc, "spread")  # one value: 30 buckets at it, counted in the last
    assert [(step, value.shape, value[-1].tolist()) for step, value in spread] == [
        (i, (30, 3), [i, i, 4.0]) for i in range(5)]


@pytest.mark.parametrize("jit_compile", [False, True])
def test_compiled_function_reads_a_variable_step(tmp_path, jit_compile):
    w = rt.summary.create_file_writer(str(tmp_path))
    counter = rt.Variable(0, dtype=rt.int64)

    @rt.function(jit_compile=jit_compile)
    def train(x):
        counter.assign_add(1)
        rt.summary.scalar("x", x)
        return x

    rt.summary.experimental.set_step(counter)
    try:
        with w.as_default():
            for i in range(3):
                train(rt.constant(float(i)))
    finally:
        rt.summary.experimental.set_step(None)
        w.close()
    assert scalars(read(tmp_path), "x") == [(1, 0.0), (2, 1.0), (3, 2.0)]


def test_the_writer_of_each_call_and_tensor_conditions(tmp_path):
    first = rt.summary.create_file_writer(str(tmp_path / "first"))
    second = rt.summary.create_file_writer(str(tmp_path / "second"))

    @rt.function
    def f(x, keep):
        with rt.summary.record_if(keep):
            rt.summary.scalar("x", x, step=rt.cast(x, rt.int64))
        rt.summary.text("label", "constant text", step=0)
        return x

    with first.as_default():
        f(rt.constant(1.0), rt.constant(True))
        f(rt.constant(2.0), rt.constant(False))  # not recorded: the condition is false
    f(rt.constant(3.0), rt.constant(True))  # no default writer at this call: not recorded
    with second.as_default():  # the writer in effect at the call, not at the trace
        f(rt.constant(4.0), rt.constant(True))
    first.close()
    second.close()
    assert f.experimental_get_tracing_count() == 1
    acc = read(tmp_path / "first")
    assert scalars(acc, "x") == [(1, 1.0)]
    assert [t.tensor_proto.string_val for t in acc.Tensors("label")] == [[b"constant text"]] * 2
    assert scalars(read(tmp_path / "second"), "x") == [(4, 4.0)]


def test_graph_and_trace_export(tmp_path):
    @rt.function
    def f(x):
        return rt.math.tanh(x) * 2.0

    w = rt.summary.create_file_writer(str(tmp_path / "graph"))
    with w.as_default():
        assert rt.summary.graph(f.get_concrete_function(rt.constant([1.0, 2.0])))
    w.close()
    graph = read(tmp_path / "graph").Graph()
    ops = {n.op for n in graph.node}
    assert {"Placeholder", "Tanh", "Mul"} <= ops
    mul = next(n for n in graph.node if n.op == "Mul")
    assert any(i.startswith("Tanh") for i in mul.input)

    @rt.function
    def g(x):
        return rt.reduce_sum(x * x)

    w = rt.summary.create_file_writer(str(tmp_path / "trace"))
    rt.summary.trace_on(graph=True)
    g(rt.constant([1.0, 2.0]))
    with w.as_default():
        assert rt.summary.trace_export("g_trace", step=0)
    with w.as_default(), pytest.raises(TypeError, match="get_concrete_function"):
        rt.summary.graph(g)
    w.close()
    assert "Sum" in {n.op for n in read(tmp_path / "trace").Graph().node}


def test_profiler_names_are_no_ops(tmp_path):
    rt.profiler.experimental.start(str(tmp_path))
    rt.profiler.experimental.stop()


def test_fit_with_the_tensorboard_callback(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.random((64, 3)).astype("float32")
    y = (x.sum(axis=1) > 1.5).astype("float32")[:, None]
    model = rt.keras.Sequential([rt.keras.layers.Dense(4, activation="relu"),
                                 rt.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=rt.keras.optimizers.Adam(0.01), loss="binary_crossentropy",
                  metrics=["accuracy"])
    callback = rt.keras.callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1,
                                              update_freq=2)
    history = model.fit(x, y, epochs=3, batch_size=16, validation_data=(x, y), verbose=0,
                        callbacks=[callback])
    train, valid = read(tmp_path / "train"), read(tmp_path / "validation")
    for name, acc, prefix in (("loss", train, ""), ("accuracy", train, ""),
                              ("loss", valid, "val_"), ("accuracy", valid, "val_")):
        got = scalars(acc, f"epoch_{name}")
        assert [s for s, _ in got] == [0, 1, 2]
        np.testing.assert_allclose([v for _, v in got], history.history[prefix + name],
                                   rtol=1e-6)
    assert [s for s, _ in scalars(train, "batch_loss")] == [2, 4, 6, 8, 10, 12]
    kernel = model.layers[0].kernel.path   # sequential/dense/kernel, ... (Keras 3's path)
    histograms = tags_of(train, "histograms")
    assert f"{kernel}/histogram" in histograms  # Keras 3's tag: the weight's path + /histogram
    assert len(train.Tensors(histograms[0])) == 3
    # as Keras 3: the learning rate each epoch, and validation against the optimizer's steps
    assert scalars(train, "epoch_learning_rate") == [(e, pytest.approx(0.01)) for e in range(3)]
    for name in ("loss", "accuracy"):
        got = scalars(valid, f"evaluation_{name}_vs_iterations")
        assert [s for s, _ in got] == [4, 8, 12]  # 4 batches an epoch
        np.testing.assert_allclose([v for _, v in got], history.history["val_" + name],
                                   rtol=1e-6)
    assert "MatMul" in {n.op for n in train.Graph().node}


def test_the_callback_checks_its_arguments(tmp_path):
    with pytest.raises(ValueError, match="update_freq"):
        rt.keras.callbacks.TensorBoard(str(tmp_path), update_freq="sometimes")
    with pytest.raises(TypeError):
        rt.keras.callbacks.TensorBoard(str(tmp_path), histogram_frequency=1)


def test_missing_tensorboardx_names_the_extra(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ImportError, match=r"autograph-rt\[summary\]"):
        rt.summary.create_file_writer(str(tmp_path))
    assert os.path.isdir(tmp_path)


def test_the_callback_writes_weights_as_keras_images(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    import io
    rng = np.random.default_rng(1)
    x = rng.random((16, 3)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    model = rt.keras.Sequential([rt.keras.Input((3,)), rt.keras.layers.Dense(4),
                                 rt.keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    callback = rt.keras.callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1,
                                              write_images=True, write_graph=False)
    model.fit(x, np.repeat(y, 2, axis=1), epochs=2, batch_size=8, verbose=0,
              callbacks=[callback])
    train = read(tmp_path / "train")
    images = tags_of(train, "images")
    first, second = model.layers
    # Keras 3's layout: a bias [1, n, 1, 1] (a column); a matrix [1, short, long, 1]
    expected = [(first.kernel, first.kernel.numpy()), (first.bias, first.bias.numpy()[:, None]),
                (second.kernel, second.kernel.numpy().T),
                (second.bias, second.bias.numpy()[:, None])]
    for variable, layout in expected:
        tag = f"{variable.path}/image"  # Keras 3's tag: the weight's path
        assert tag in images
        ((step, value),) = tensors(train, tag)[-1:]
        assert step == 1 and list(value[:2]) == [str(layout.shape[1]).encode(),
                                                 str(layout.shape[0]).encode()]
        pixels = np.asarray(pil.open(io.BytesIO(value[2])))
        # TensorFlow's float to uint8: x * 255.5, saturated at 0 and 255, truncated
        want = np.clip(layout.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(pixels.reshape(want.shape), want)
