"""Behaviours TensorFlow's Keras tutorials rely on, each checked against Keras 3 (TensorFlow
2.21) as measured with the same program, or against NumPy."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras


class _Probe(keras.layers.Layer):
    """Records the shapes its call sees."""

    def __init__(self, seen, **kwargs):
        super().__init__(**kwargs)
        self.seen = seen

    def call(self, x):
        self.seen.append(tuple(x.shape))
        return x


def test_fit_evaluate_and_predict_trace_with_an_unknown_batch_axis():
    # Keras 3 (measured): 70 samples in batches of 32 -> fit and evaluate trace (None, 5, 3);
    # predict traces its first batch's own shape, then (None, 5, 3) for the short last one
    seen: list = []
    model = keras.Sequential([_Probe(seen), keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    x = np.ones((70, 5, 3), "float32")
    y = np.ones((70, 5, 2), "float32")
    model.fit(x, y, batch_size=32, epochs=2, verbose=0)
    assert set(seen) == {(None, 5, 3)}
    seen.clear()
    model.evaluate(x, y, batch_size=32, verbose=0)
    assert set(seen) == {(None, 5, 3)}
    seen.clear()
    model.predict(x, batch_size=32, verbose=0)
    assert set(seen) == {(32, 5, 3), (None, 5, 3)}


def test_summary_after_predict_shows_the_shapes_of_the_first_predicted_batch(capsys):
    # Keras 3 (measured): a Sequential without an Input built by predict(x[:10]) shows
    # (10, 2) and (10, 1); built by predict in batches of 8, (8, 2) and (8, 1)
    x = np.arange(60, dtype="float32").reshape(20, 3)
    for rows, batch_size in ((10, 32), (20, 8)):
        model = keras.Sequential([keras.layers.Dense(2), keras.layers.Dense(1)])
        assert model.predict(x[:rows], batch_size=batch_size, verbose=0).shape == (rows, 1)
        capsys.readouterr()
        model.summary()
        text = capsys.readouterr().out
        size = min(rows, batch_size)
        assert f"({size}, 2)" in text and f"({size}, 1)" in text


class _Denoise(keras.Model):
    """The denoising autoencoder of TensorFlow's autoencoder tutorial."""

    def __init__(self):
        super().__init__()
        layers = keras.layers
        self.encoder = keras.Sequential([
            layers.Input(shape=(28, 28, 1)),
            layers.Conv2D(16, (3, 3), activation="relu", padding="same", strides=2),
            layers.Conv2D(8, (3, 3), activation="relu", padding="same", strides=2)])
        self.decoder = keras.Sequential([
            layers.Conv2DTranspose(8, kernel_size=3, strides=2, activation="relu", padding="same"),
            layers.Conv2DTranspose(16, kernel_size=3, strides=2, activation="relu", padding="same"),
            layers.Conv2D(1, kernel_size=(3, 3), activation="sigmoid", padding="same")])

    def call(self, x):
        return self.decoder(self.encoder(x))


def test_a_sequential_built_inside_fit_trains_on_a_short_last_batch_and_reports_none(capsys):
    # Keras 3 trains this on 70 samples (last batch of 6) and its decoder's summary shows
    # (None, 14, 14, 8), (None, 28, 28, 16), (None, 28, 28, 1) with 584, 1,168 and 145 params
    model = _Denoise()
    model.compile(optimizer="adam", loss=keras.losses.MeanSquaredError())
    x = rt.clip_by_value(np.random.default_rng(0).random((70, 28, 28, 1), np.float32)
                         + 0.2 * rt.random.normal(shape=(70, 28, 28, 1)), 0.0, 1.0)
    history = model.fit(x, x, epochs=1, batch_size=32, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    capsys.readouterr()
    model.decoder.summary()
    text = capsys.readouterr().out
    for shape, params in (("(None, 14, 14, 8)", "584"), ("(None, 28, 28, 16)", "1,168"),
                          ("(None, 28, 28, 1)", "145")):
        assert shape in text and params in text


def test_models_saved_under_keras_legacy_hdf5_names_load_back_with_their_optimizer(tmp_path):
    # Keras 3 saves `model.save("m.h5")` (warning that the format is legacy) and load_model
    # gives back the compiled model; here the file is this runtime's archive, and says so
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("adam", keras.losses.MeanSquaredError(), metrics=["mae"])
    x = np.linspace(0.0, 1.0, 24, dtype="float32").reshape(8, 3)
    model.fit(x, np.zeros((8, 2)), verbose=0)
    for name in ("m.h5", "m.hdf5"):
        with pytest.warns(UserWarning, match="not HDF5"):
            model.save(tmp_path / name)
        loaded = keras.models.load_model(tmp_path / name)
        np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
        assert int(loaded.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())
        for mine, theirs in zip(loaded.optimizer.variables, model.optimizer.variables):
            np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))
        assert loaded.evaluate(x, np.zeros((8, 2)), verbose=0) == model.evaluate(
            x, np.zeros((8, 2)), verbose=0)


def test_layer_names_follow_keras_rules():
    # Keras 3 (measured): name="" stays empty (a Model's summary title is ""); a name that
    # is not a string or holds "/" raises ValueError naming the argument
    class Block(keras.Model):
        def __init__(self):
            super().__init__(name="")
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    block = Block()
    block(np.zeros((1, 3), "float32"))
    assert block.name == "" and keras.layers.Dense(2, name="").name == ""
    assert keras.layers.Dense(2).name != ""
    for bad in ("a/b", 3):
        with pytest.raises(ValueError, match="Argument `name` must be a string"):
            keras.layers.Dense(2, name=bad)


def test_add_weight_takes_keras_3s_arguments():
    # Keras 3 (measured): positional (shape, initializer, dtype), the rest by keyword; its
    # errors for a doubled argument, a fourth positional and an unknown aggregation
    messages = []

    class Weights(keras.layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight(shape=(2,))
            self.b = self.add_weight((3,), "ones")
            self.c = self.add_weight((3,), "zeros", "float64", name="c")
            self.d = self.add_weight(shape=(1,), aggregation="mean", autocast=False,
                                     trainable=False)
            for bad in (lambda: self.add_weight((3,), shape=(2,)),
                        lambda: self.add_weight((3,), "ones", "float32", 4),
                        lambda: self.add_weight("kernel", shape=(2,)),
                        lambda: self.add_weight(shape=(3,), aggregation="bad")):
                with pytest.raises((TypeError, ValueError)) as info:
                    bad()
                messages.append((info.type, str(info.value)))

        def call(self, x):
            return x

    layer = Weights()
    layer(np.zeros((1, 2), "float32"))
    assert [(tuple(w.shape), w.dtype.name, w.trainable) for w in layer.weights] == [
        ((2,), "float32", True), ((3,), "float32", True), ((3,), "float64", True),
        ((1,), "float32", False)]
    np.testing.assert_array_equal(layer.b.numpy(), np.ones(3, np.float32))
    assert messages == [
        (ValueError, "`shape` was passed both positionally and as a keyword argument."),
        (TypeError, "add_weight() takes at most 3 positional arguments but 4 were given."),
        # Keras 3.15's message for tf.keras 2's leading name (printed by keras 3.15)
        (ValueError, "`name` must be passed as a keyword argument. Received: "
                     "add_weight('kernel', ...). Use: add_weight(shape=..., name='kernel')."),
        (ValueError, "Invalid value for argument `aggregation`. Expected one of `None`, "
                     "`'none'`, `'mean'`, `'sum'`, `'only_first_replica'`. Received: "
                     "aggregation=bad")]
    clip = layer.add_weight(shape=(2,), constraint=lambda w: w * 0.0)
    assert clip.constraint is not None      # applied by the optimizer after each update


def test_units_and_sizes_must_be_python_ints_as_in_keras_3():
    # Keras 3 checks isinstance(units, int): a NumPy integer (tf.reduce_prod(shape).numpy())
    # is refused by Dense, Embedding and MultiHeadAttention, as the autoencoder tutorial shows
    with pytest.raises(ValueError, match=r"units.*int\(units\)"):
        keras.layers.Dense(np.int32(784))
    with pytest.raises(ValueError, match="input_dim"):
        keras.layers.Embedding(np.int64(10), 3)
    with pytest.raises(ValueError, match="num_heads"):
        keras.layers.MultiHeadAttention(num_heads=np.int32(2), key_dim=4)
    assert keras.layers.Dense(784).units == 784
    assert keras.layers.Conv2D(np.int64(3), 3).filters == 3   # Keras 3 checks only > 0 here


def test_summary_shows_a_layers_first_call_on_keras_tensors():
    # TensorFlow 2.21 + Keras 3 print (10, 9) for the shared Normalization layer of an unbuilt
    # Sequential: its first call was in a Sequential built by predict on 10 rows (the
    # regression tutorial's dnn_model.summary()); the Dense layers are unbuilt
    norm = keras.layers.Normalization(axis=-1)
    x = np.random.RandomState(0).randn(50, 9).astype("float32")
    norm.adapt(x)
    linear = keras.Sequential([norm, keras.layers.Dense(1)])
    linear.predict(x[:10], verbose=0)
    dnn = keras.Sequential([norm, keras.layers.Dense(4), keras.layers.Dense(1)])
    lines = []
    dnn.summary(print_fn=lines.append)
    text = "\n".join(lines)
    row = next(line for line in text.splitlines() if "(Normalization)" in line)
    assert "(10, 9)" in row
    assert text.count("0 (unbuilt)") == 2
