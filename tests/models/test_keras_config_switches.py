"""keras.config's switches (interactive logging, the epoch and step limits, flash attention,
unsafe deserialization, the backend and dtype policy), keras.utils.PyDataset in fit /
evaluate / predict, and keras.utils.get_source_inputs."""

import logging

import numpy as np
import pytest

import runtime as rt

keras = rt.keras


@pytest.fixture(autouse=True)
def _restore_settings():
    yield
    keras.config.enable_interactive_logging()
    keras.config.set_max_epochs(None)
    keras.config.set_max_steps_per_epoch(None)
    keras.config.enable_flash_attention()
    from runtime.layers import function_source
    function_source._UNSAFE["everywhere"] = False


def _model():
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


class Batches(keras.utils.PyDataset):
    def __init__(self, count=3, **kwargs):
        super().__init__(**kwargs)
        self.count, self.log = count, []

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        self.log.append(index)
        x = np.full((2, 1), float(index), "float32")
        return x, 2 * x

    def on_epoch_begin(self):
        self.log.append("begin")

    def on_epoch_end(self):
        self.log.append("end")


def test_py_dataset_feeds_fit_evaluate_and_predict():
    assert keras.utils.Sequence is keras.utils.PyDataset  # as in Keras 3
    model, data = _model(), Batches()
    history = model.fit(data, epochs=2, verbose=0, shuffle=False)
    assert len(history.history["loss"]) == 2
    assert data.log == ["begin", 0, 1, 2, "end"] * 2
    data.log.clear()
    model.fit(data, epochs=1, verbose=0)  # shuffle=True: every batch once, in some order
    assert sorted(data.log[1:-1]) == [0, 1, 2] and data.log[0] == "begin"
    data.log.clear()
    loss = model.evaluate(data, verbose=0)
    assert data.log == ["begin", 0, 1, 2, "end"]
    expected = np.mean([(model.predict(np.full((2, 1), i, "float32"), verbose=0) - 2 * i) ** 2
                        for i in range(3)])
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    assert model.predict(data, verbose=0).shape == (6, 1)
    history = model.fit(data, epochs=1, verbose=0, validation_data=Batches())
    assert "val_loss" in history.history
    assert data.workers == 1 and data.use_multiprocessing is False and data.max_queue_size == 10
    # Keras: "When providing `x` as a PyDataset, `y` should not be passed."
    with pytest.raises(ValueError, match="PyDataset"):
        model.fit(data, np.zeros((6, 1)), verbose=0)


def test_a_py_dataset_without_len_names_what_is_missing():
    class NoLength(keras.utils.PyDataset):
        def __getitem__(self, index):
            return np.zeros((1, 1)), np.zeros((1, 1))

    with pytest.raises(NotImplementedError, match="__len__"):
        _model().fit(NoLength(), verbose=0)


def test_max_epochs_and_steps_cap_fit(recwarn):
    model = _model()
    x, y = np.ones((8, 1), "float32"), np.ones((8, 1), "float32")
    keras.config.set_max_epochs(2)
    assert keras.config.max_epochs() == 2
    history = model.fit(x, y, epochs=5, batch_size=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert any("Limiting epochs to 2" in str(w.message) for w in recwarn)
    keras.config.set_max_steps_per_epoch(1)
    data = Batches()
    model.fit(data, epochs=1, verbose=0, shuffle=False)
    assert data.log == ["begin", 0]
    with pytest.raises(ValueError, match="positive integer"):
        keras.config.set_max_epochs(0)


def test_interactive_logging_off_sends_progress_to_the_logger(capsys, caplog):
    assert keras.config.is_interactive_logging_enabled() is True
    keras.utils.disable_interactive_logging()
    assert keras.utils.is_interactive_logging_enabled() is False
    model = _model()
    with caplog.at_level(logging.INFO, logger="keras"):
        model.fit(np.ones((4, 1), "float32"), np.ones((4, 1), "float32"), verbose=2)
    assert capsys.readouterr().out == ""
    assert any("loss" in r.getMessage() for r in caplog.records if r.name == "keras")
    keras.config.enable_interactive_logging()
    model.fit(np.ones((4, 1), "float32"), np.ones((4, 1), "float32"), verbose=2)
    assert "loss" in capsys.readouterr().out


def test_flash_attention_switch_as_keras_records_it():
    # Keras 3: None by default and after enable_flash_attention(), False once disabled
    assert keras.config.is_flash_attention_enabled() is None
    keras.config.disable_flash_attention()
    assert keras.config.is_flash_attention_enabled() is False
    keras.config.enable_flash_attention()
    assert keras.config.is_flash_attention_enabled() is None


def test_backend_nnx_and_dtype_policy():
    assert keras.config.is_nnx_enabled() is False
    keras.config.set_backend("tensorflow")
    with pytest.raises(NotImplementedError, match="jax"):
        keras.config.set_backend("jax")
    assert keras.config.dtype_policy().name == "float32"
    keras.config.set_dtype_policy("float32")
    with pytest.raises(NotImplementedError, match="mixed_float16"):
        keras.config.set_dtype_policy("mixed_float16")


def test_unsafe_deserialization_lets_deserialize_keras_object_rebuild_lambdas():
    layer = keras.layers.Lambda(lambda x: x + 1)
    config = keras.saving.serialize_keras_object(layer)
    with pytest.raises(ValueError, match="safe_mode"):
        keras.saving.deserialize_keras_object(config)
    keras.config.enable_unsafe_deserialization()
    rebuilt = keras.saving.deserialize_keras_object(config)
    np.testing.assert_allclose(rebuilt(np.array([1.0], "float32")), [2.0])


def test_get_source_inputs():
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    hidden = keras.layers.Concatenate()([keras.layers.Dense(2)(a), b])
    out = keras.layers.Dense(1)(hidden)
    assert keras.utils.get_source_inputs(out) == [a, b]
    assert keras.utils.get_source_inputs(a) == [a]
    values = np.ones(2)
    assert keras.utils.get_source_inputs(values) is values
