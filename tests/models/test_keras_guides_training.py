"""Behaviours Keras's developer guides on callbacks, training steps and subclassing rely on,
each checked against Keras 3 (TensorFlow 2.21) as measured under it."""

import os

import numpy as np
import pytest

import runtime as rt
from runtime import keras


class _Recorder(keras.callbacks.Callback):
    """Records the `logs` each hook received."""

    def __init__(self):
        super().__init__()
        self.seen = {}

    def _keep(self, name, logs):
        self.seen.setdefault(name, logs)

    def on_train_begin(self, logs=None):
        self._keep("train_begin", logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._keep("epoch_begin", logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._keep("train_batch_begin", logs)

    def on_test_begin(self, logs=None):
        self._keep("test_begin", logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._keep("test_batch_begin", logs)

    def on_predict_begin(self, logs=None):
        self._keep("predict_begin", logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._keep("predict_batch_begin", logs)

    def on_predict_end(self, logs=None):
        self._keep("predict_end", logs)


def test_begin_hooks_get_an_empty_logs_dict():
    # Keras 3's CallbackList hands every hook a dict ({} when there is nothing to log), so
    # the callbacks guide's `list(logs.keys())` prints [] there
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.ones((8, 3), "float32"), np.ones((8, 1), "float32")
    recorder = _Recorder()
    model.fit(x, y, batch_size=4, verbose=0, validation_split=0.5, callbacks=[recorder])
    model.predict(x, verbose=0, callbacks=[recorder])
    assert recorder.seen == {name: {} for name in (
        "train_begin", "epoch_begin", "train_batch_begin", "test_begin", "test_batch_begin",
        "predict_begin", "predict_batch_begin", "predict_end")}


def test_backend_get_value_set_value_and_random_normal():
    # tf.keras.backend.get_value/set_value read and assign a variable; random_normal draws
    # floatx() values of the given shape (keras._tf_keras.keras.backend under Keras 3)
    v = rt.Variable(0.5)
    assert keras.backend.get_value(v) == np.float32(0.5)
    keras.backend.set_value(v, 2.0)
    assert v.numpy() == np.float32(2.0)
    draw = keras.backend.random_normal(shape=(200, 50), seed=1)
    assert draw.shape == (200, 50) and draw.dtype == rt.float32
    assert abs(float(np.mean(draw))) < 0.05 and abs(float(np.std(draw)) - 1.0) < 0.05


class _MeanActivity(keras.layers.Layer):
    def call(self, inputs):
        self.add_loss(0.01 * rt.reduce_mean(inputs))
        return inputs


def test_fit_a_model_without_trainable_weights():
    # the subclassing guide fits a model of one add_loss layer (no weights): Keras 3 trains
    # nothing and reports the loss, mse + 0.01 * mean(x) here
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, _MeanActivity()(inputs))
    model.compile(optimizer="adam", loss="mse")
    x = np.array([[0.2, 0.4, 0.6], [0.1, 0.3, 0.5]], "float32")
    y = np.zeros((2, 3), "float32")
    history = model.fit(x, y, verbose=0)
    expected = np.mean(x ** 2) + 0.01 * np.mean(x)
    np.testing.assert_allclose(history.history["loss"], [expected], rtol=1e-5)


def test_compile_without_a_loss_trains_on_add_loss_terms():
    # Keras 3: compile(optimizer) alone; fit minimizes and reports the add_loss terms
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, _MeanActivity()(inputs))
    model.compile(optimizer="adam")
    x = np.array([[0.2, 0.4, 0.6], [0.1, 0.3, 0.5]], "float32")
    history = model.fit(x, np.zeros((2, 3), "float32"), verbose=0)
    np.testing.assert_allclose(history.history["loss"], [0.01 * np.mean(x)], rtol=1e-5)
    assert abs(model.evaluate(x, np.zeros((2, 3), "float32"), verbose=0) - 0.0035) < 1e-6


def test_compile_without_a_loss_and_no_add_loss_refused_at_fit():
    # Keras 3 raises ValueError "No loss to compute. Provide a `loss` argument in `compile()`."
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="adam")
    with pytest.raises(ValueError, match="loss"):
        model.fit(np.ones((2, 3), "float32"), np.ones((2, 1), "float32"), verbose=0)


class _OwnSteps(keras.Model):
    """The custom_train_step guide's model: its own train_step and test_step over
    compute_loss, optimizer.apply and model.metrics."""

    def _update(self, y, y_pred, loss):
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def train_step(self, data):
        x, y = data
        with rt.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return self._update(y, y_pred, loss)

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        return self._update(y, y_pred, self.compute_loss(y=y, y_pred=y_pred))


def _own_steps_model():
    inputs = keras.Input(shape=(3,))
    model = _OwnSteps(inputs, keras.layers.Dense(1)(inputs))
    model.set_weights([np.array([[0.5], [-0.25], [1.0]], "float32"),
                       np.array([0.1], "float32")])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    return model


_X = np.array([[1, 2, 3], [0, 1, 0], [2, 0, 1], [1, 1, 1], [0, 0, 2], [3, 1, 0]], "float32")
_Y = np.array([[1], [0], [2], [1], [3], [0]], "float32")


def test_subclass_given_inputs_and_outputs_fits_with_its_own_train_step():
    # the numbers Keras 3 (TensorFlow 2.21) prints for this program
    model = _own_steps_model()
    assert isinstance(model, _OwnSteps) and type(model).__name__ == "_OwnSteps"
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]
    history = model.fit(_X, _Y, batch_size=3, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [1.4422590732574463, 0.6631891131401062],
                               rtol=1e-5)
    np.testing.assert_allclose(history.history["mae"], [0.8933332562446594, 0.701474130153656],
                               rtol=1e-5)
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel.ravel(), [0.25442174, -0.5998134, 0.9383378], rtol=1e-5)
    np.testing.assert_allclose(bias, [0.20464694], rtol=1e-5)
    # evaluate runs test_step; its list puts the metrics of model.metrics in their order
    np.testing.assert_allclose(model.evaluate(_X, _Y, batch_size=4, verbose=0),
                               [0.4289665222167969, 0.5511627197265625], rtol=1e-5)


def test_own_metrics_property_reset_at_each_epoch():
    # the guide's "going lower-level" model: its metrics property lists its trackers; fit
    # resets them at each epoch, so an epoch's loss is that epoch's mean (Keras 3)
    class Tracked(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.seen = keras.metrics.Sum(name="seen")

        def train_step(self, data):
            x, _ = data
            self.seen.update_state(rt.cast(rt.shape(x)[0], "float32"))
            return {"seen": self.seen.result()}

        @property
        def metrics(self):
            return [self.seen]

    inputs = keras.Input(shape=(3,))
    model = Tracked(inputs, keras.layers.Dense(1)(inputs))
    model.compile(optimizer="adam")
    history = model.fit(_X, _Y, batch_size=4, epochs=2, verbose=0)
    assert history.history["seen"] == [6.0, 6.0]


def test_seed_generator_draws_anew_at_each_traced_step():
    # keras.random with a SeedGenerator: a fresh draw at every call of a traced function; an
    # int seed the same draw each time
    gen = keras.random.SeedGenerator(1337)

    @rt.function
    def draw():
        return keras.random.normal((4,), seed=gen)

    first, second = draw().numpy(), draw().numpy()
    assert not np.allclose(first, second)
    np.testing.assert_array_equal(keras.random.uniform((3,), seed=7),
                                  keras.random.uniform((3,), seed=7))
    dropped = keras.random.dropout(rt.ones((50, 40)), 0.5, seed=gen).numpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0} and 0.4 < np.mean(dropped == 0) < 0.6


def test_fit_on_a_dataset_of_inputs_alone_hands_train_step_x():
    # the guide's GAN fits on a dataset of images only: Keras passes the batch itself
    seen = []

    class OnlyX(keras.Model):
        def train_step(self, data):
            seen.append(isinstance(data, tuple))
            return {"total": rt.reduce_sum(data)}

    inputs = keras.Input(shape=(2,))
    model = OnlyX(inputs, keras.layers.Dense(1)(inputs))
    model.compile()
    data = rt.data.Dataset.from_tensor_slices(np.arange(8, dtype="float32").reshape(4, 2))
    history = model.fit(data.batch(2), epochs=1, verbose=0)
    assert seen and not any(seen)
    assert history.history["total"] == [float(np.sum(np.arange(4, 8)))]


def test_optimizer_apply_takes_gradients_and_variables():
    # Keras 3's optimizer.apply(grads, trainable_variables): SGD moves v by -lr * g
    v = rt.Variable([1.0, 2.0])
    keras.optimizers.SGD(0.5).apply([rt.constant([2.0, -2.0])], [v])
    np.testing.assert_allclose(v.numpy(), [0.0, 3.0])


def test_dtype_from_tensorflow_enum_value():
    # the subclassing guide calls tf.zeros(1, 1): TensorFlow reads dtype=1 as its DataType
    # enum (DT_FLOAT); tf.as_dtype(9) is int64, tf.as_dtype(10) bool
    zeros = rt.zeros(1, 1)
    assert zeros.dtype == rt.float32 and zeros.numpy().tolist() == [0.0]
    assert rt.as_dtype(9) == rt.int64 and rt.as_dtype(10) == rt.bool
    with pytest.raises(TypeError, match="99"):
        rt.as_dtype(99)


def test_keras_ops_numpy_and_nn_functions():
    # the intro guide's custom Dense calls keras.ops.matmul; keras.ops has the NumPy API and
    # the nn ops (values as NumPy computes them), and shape() is the static shape tuple
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.arange(3, dtype="float32").reshape(3, 1) - 1.0
    np.testing.assert_allclose(keras.ops.matmul(a, b), a @ b)
    np.testing.assert_allclose(keras.ops.relu(a @ b), np.maximum(a @ b, 0))
    np.testing.assert_allclose(keras.ops.mean(a, axis=0), a.mean(axis=0))
    assert keras.ops.shape(a) == (2, 3)
    assert keras.ops.cast(a, "int32").dtype == rt.int32
    with pytest.raises(AttributeError, match="no_such_op"):
        _ = keras.ops.no_such_op


@keras.utils.register_keras_serializable(package="guides_training_test")
class _VocabDense(keras.layers.Dense):
    """The customizing-saving guide's layer: a vocabulary kept as an asset file."""

    def __init__(self, vocab=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.vocab = vocab

    def save_assets(self, inner_path):
        with open(os.path.join(inner_path, "vocabulary.txt"), "w") as f:
            f.write(self.vocab)

    def load_assets(self, inner_path):
        with open(os.path.join(inner_path, "vocabulary.txt")) as f:
            self.vocab = f.read().replace("<unk>", "little")


@pytest.mark.parametrize("name", ["assets_model.keras", "assets_model_dir"])
def test_save_assets_and_load_assets_round_trip(tmp_path, name):
    # Keras 3 calls save_assets(dir) at save and load_assets(dir) at load_model with the
    # files written there: the guide's restored vocab reads "Mary had a little lamb."
    model = keras.Sequential([_VocabDense(vocab="Mary had a <unk> lamb.", units=5)])
    model(np.random.random((10, 10)))
    model.save(str(tmp_path / name))
    restored = keras.models.load_model(str(tmp_path / name))
    assert restored.layers[0].vocab == "Mary had a little lamb."
    np.testing.assert_array_equal(restored.layers[0].get_weights()[0],
                                  model.layers[0].get_weights()[0])


def test_one_epoch_fit_prints_no_epoch_header(capsys):
    # Keras 3 (measured, verbose=2): fit(epochs=1) prints "1/1 - 0s - ...ms/step - loss: ..."
    # with no "Epoch 1/1" line; fit(epochs=2) prints "Epoch 1/2" and "Epoch 2/2"
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), epochs=1, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("1/1 - ") and "loss: " in lines[0]
    model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), epochs=2, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0::2] == ["Epoch 1/2", "Epoch 2/2"]
