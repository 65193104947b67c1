"""Keras 3's `Metric.add_weight` / `add_variable` arguments and layers' build configs.

The expected behaviour is what Keras 3.15 (TensorFlow 2.21) does for the same calls:
`Metric.add_weight(shape=(), initializer=None, dtype=None, name=None)` takes its arguments
positionally in that order and refuses a leading name (tf.keras 2's form) with ValueError.
"""

import numpy as np
import pytest

from runtime import keras


class _Counts(keras.metrics.Metric):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.pair = self.add_weight((2,), "ones")  # shape, initializer
        self.total = self.add_weight((), "zeros", "float16", "total")  # name 4th
        self.seen = self.add_variable((), "zeros", aggregation="mean", name="seen")

    def update_state(self, values):
        self.total.assign_add(np.sum(values))
        self.seen.assign_add(1.0)

    def result(self):
        return keras.ops.cast(self.total, "float32") / self.seen


def test_metric_add_weight_takes_keras_3_positional_arguments():
    metric = _Counts(name="counts")
    np.testing.assert_array_equal(metric.pair.numpy(), [1.0, 1.0])
    assert metric.total.dtype.name == "float16" and metric.total.name.startswith("counts/total")
    metric.update_state([1.0, 2.0])
    metric.update_state([3.0])
    assert float(metric.result()) == 3.0
    metric.reset_state()
    assert float(metric.total.numpy()) == 0.0


def test_metric_add_weight_refuses_a_leading_name_as_keras_3():
    class Named(keras.metrics.Metric):
        def __init__(self):
            super().__init__()
            self.add_weight("total", initializer="zeros")

    with pytest.raises(ValueError, match="name is a keyword"):
        Named()
    with pytest.raises(TypeError):
        _Counts().add_weight(shape=(), nme="x")


def _build_configs(value, path=()):
    """{location: build_config} of every serialized layer inside `value`."""
    found = {}
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "build_config":
                found["/".join(path)] = item
            step = str(value.get("class_name", key)) if key == "config" else key
            found.update(_build_configs(item, path + (step,)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.update(_build_configs(item, path + (str(index),)))
    return found


def test_layers_holding_layers_serialize_their_build_configs_as_keras():
    L = keras.layers
    model = keras.Sequential([keras.Input((4, 3)),
                              L.Bidirectional(L.LSTM(2, return_sequences=True)),
                              L.TimeDistributed(L.Dense(2)), L.LSTM(1)])
    found = {key: value["input_shape"] for key, value in
             _build_configs(keras.saving.serialize_keras_object(model)).items()}
    # Keras 3.15's serialize_keras_object(model) for the same model
    assert {key: list(value) for key, value in found.items()} == {
        "Sequential/layers/1/Bidirectional/layer": [None, 4, 3],
        "Sequential/layers/1/Bidirectional/backward_layer": [None, 4, 3],
        "Sequential/layers/1": [None, 4, 3],
        "Sequential/layers/2/TimeDistributed/layer": [None, 4],
        "Sequential/layers/2": [None, 4, 4],
        "Sequential/layers/3": [None, 4, 2],
        "": [None, 4, 3]}
    both = model.layers[0]
    assert both.get_build_config() == {"input_shape": (None, 4, 3)}
    assert both.forward_layer.get_build_config() == {"input_shape": (None, 4, 3)}
    assert model.layers[1].layer.get_build_config() == {"input_shape": (None, 4)}
    assert L.Dropout(0.5).get_build_config() is None  # built when made: none, as Keras


def test_build_from_config_builds_the_weights():
    dense = keras.layers.Dense(3)
    dense.build_from_config({"input_shape": (None, 5)})
    assert dense.built and dense.kernel.shape.as_list() == [5, 3]
    assert dense.get_build_config() == {"input_shape": (None, 5)}
    dense.build_from_config(None)  # nothing to do
    with pytest.raises(ValueError, match="input_shape"):
        keras.layers.Dense(2).build_from_config({"shape": (None, 2)})


def test_an_h5_model_file_keeps_the_optimizer_state(tmp_path):
    # Keras 3.15's model.save("m.h5") writes optimizer_weights (adam/iteration,
    # adam/learning_rate, adam/<weight path>_momentum / _velocity) and load_model restores
    # them (iterations 2 after two epochs); the next epoch continues the same Adam steps
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.Adam(), keras.losses.MeanSquaredError())
    x, y = np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)
    model.fit(x, y, epochs=2, verbose=0)
    path = str(tmp_path / "m.h5")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert int(loaded.optimizer.iterations.numpy()) == 2
    for saved, restored in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(np.asarray(saved), np.asarray(restored))
    np.testing.assert_array_equal(loaded.fit(x, y, verbose=0).history["loss"],
                                  model.fit(x, y, verbose=0).history["loss"])
