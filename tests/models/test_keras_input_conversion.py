"""How layers take their inputs, as Keras 3 does: arrays (NumPy, pandas) become tensors,
floating inputs are cast to the layer's dtype (autocast), merges promote their inputs' dtypes,
and layers without weights are built when made. The expected dtypes and flags were printed
by Keras 3.15 on TensorFlow 2.21 for the same programs."""

import numpy as np
import pandas as pd
import pytest

import runtime as rt
from runtime import keras

L = keras.layers
X64 = np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4)  # float64


@pytest.mark.parametrize("layer", [
    L.Dropout(0.1), L.Flatten(), L.Reshape((12,)), L.Activation("relu"), L.Lambda(lambda t: t),
    L.Identity(), L.Softmax(), L.Masking(), L.GlobalAveragePooling1D(), L.LayerNormalization(),
    L.Dense(2), L.LSTM(2)], ids=lambda layer: type(layer).__name__)
def test_float64_inputs_are_cast_to_the_layers_float32(layer):
    out = layer(X64)
    assert out.dtype == rt.float32  # Keras 3: float32 for each of these layers


def test_autocast_keeps_values_masks_and_integer_inputs():
    masked = L.Masking()(X64 * np.array([0.0, 1.0, 1.0])[None, :, None])
    out = L.Activation("linear")(masked)
    np.testing.assert_allclose(out.numpy(), (X64 * np.array([0, 1, 1.0])[None, :, None])
                               .astype(np.float32))
    assert out._keras_mask.numpy().tolist() == [[False, True, True]] * 2
    assert L.Activation("linear")(np.ones((2, 3), np.int32)).dtype == rt.int32
    assert L.Dense(2, dtype="float64")(np.ones((2, 3), np.float32)).dtype == rt.float64
    assert L.Activation("linear", autocast=False)(X64).dtype == rt.float64


def test_a_subclassed_model_converts_nests_of_arrays_and_pandas_columns():
    class Passthrough(keras.Model):
        def call(self, x):
            return x

    out = Passthrough()({"a": X64, "b": np.ones(2, np.int64)})
    assert (out["a"].dtype, out["b"].dtype) == (rt.float32, rt.int64)
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    out = L.Activation("linear")(frame)
    assert out.dtype == rt.float32 and out.numpy().tolist() == [[1, 3], [2, 4]]


def test_a_functional_model_converts_to_its_inputs_dtypes_not_its_own():
    inputs = keras.Input((3, 4), dtype="float64")
    identity = keras.Model(inputs, inputs)
    assert identity(X64).dtype == rt.float64
    np.testing.assert_array_equal(identity(X64).numpy(), X64)


@pytest.mark.parametrize("dtypes,expected", [
    (("int64", "float64"), rt.float32), (("int32", "float32"), rt.float32),
    (("int64", "int32"), rt.int64), (("bool", "float64"), rt.float32),
    (("uint8", "int8"), rt.int16), (("float64", "float64"), rt.float32)])
def test_merges_promote_dtypes_as_keras_ops_do(dtypes, expected):
    parts = [np.ones((2, 1), np.dtype(d)) for d in dtypes]
    joined = L.Concatenate(axis=1)(parts)
    assert joined.dtype == expected
    np.testing.assert_array_equal(joined.numpy(), np.ones((2, 2)))
    assert L.Add()(parts).dtype == expected


def test_the_pandas_tutorials_model_of_int_and_float_columns_trains():
    frame = pd.DataFrame({"age": np.arange(8), "oldpeak": np.linspace(0, 2, 8)})
    target = pd.Series(np.arange(8) % 2)

    class Stacked(keras.Model):
        def __init__(self):
            super().__init__()
            self.concat = L.Concatenate(axis=1)
            self.out = L.Dense(1)

        def call(self, inputs):
            return self.out(self.concat([v for _, v in sorted(inputs.items())]))

    columns = {k: v.to_numpy()[:, None] for k, v in frame.items()}
    model = Stacked()
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(columns, target.to_numpy()[:, None], epochs=1, batch_size=4, verbose=0)
    predicted = model.predict(dict(frame.iloc[:3]), verbose=0)  # Series are columns [n, 1]
    assert predicted.shape == (3, 1)


def test_fit_takes_a_dataset_of_rank_1_columns_after_arrays_of_columns():
    frame = pd.DataFrame({"a": np.arange(6.0), "t": ["x", "y", "z"] * 2})
    target = pd.Series(np.arange(6) % 2)
    inputs = {"a": keras.Input((1,), name="a"), "t": keras.Input((1,), name="t", dtype="string")}
    lookup = L.StringLookup(vocabulary=["x", "y", "z"], output_mode="one_hot")
    joined = L.Concatenate(axis=1)([inputs["a"], lookup(inputs["t"])])
    model = keras.Model(inputs, keras.Sequential([L.Dense(1)])(joined))
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(dict(frame), target, epochs=1, batch_size=2, verbose=0)
    dataset = rt.data.Dataset.from_tensor_slices((dict(frame), target)).batch(2)
    history = model.fit(dataset, epochs=1, verbose=0)  # [batch] columns, traced anew
    assert np.isfinite(history.history["loss"][0])


def test_pandas_objects_keep_their_dtypes_as_in_tensorflow():
    assert rt.convert_to_tensor(pd.Series([1, 2])).dtype == rt.int64
    assert rt.convert_to_tensor(pd.Series([1.0, 2.0])).dtype == rt.float64
    assert rt.convert_to_tensor(pd.Series(["a", "b"])).numpy().tolist() == [b"a", b"b"]
    spec = rt.data.Dataset.from_tensor_slices(
        dict(pd.DataFrame({"a": [1.0, 2.0], "t": ["x", "y"]}))).element_spec
    assert (spec["a"].dtype, spec["t"].dtype) == (rt.float64, rt.string)
    with pytest.raises(TypeError):
        rt.convert_to_tensor(pd.Series([object(), 1]))


def test_layers_without_weights_are_built_when_made():
    built = [layer.built for layer in (
        L.Flatten(), L.MaxPooling2D(), L.Activation("relu"), L.ReLU(), L.Masking(),
        L.GaussianNoise(0.1), L.SpatialDropout1D(0.1), L.UnitNormalization(), L.Identity(),
        L.Softmax(), L.ActivityRegularization(), L.LeakyReLU(), L.ELU(), L.PReLU(),
        L.Rescaling(1.0), L.Dropout(0.2), L.GlobalAveragePooling1D())]
    assert built == [False, True, True, True, True, True, True, True, True, True, True, True,
                     True, False, False, True, True]  # Keras 3's flags
    model = keras.Sequential([L.Embedding(1000, 16), L.Dropout(0.2), L.Dense(1)])
    lines: list = []
    model.summary(print_fn=lambda line, **_: lines.extend(line.splitlines()))
    rows = {line.split()[2]: line for line in lines if line.startswith("│ ") and "(" in line}
    assert rows["(Dropout)"].rstrip(" │").endswith(" 0")  # Keras: 0, the dense: 0 (unbuilt)
    assert rows["(Dense)"].rstrip(" │").endswith("0 (unbuilt)")


def test_tf_metrics_losses_and_initializers_are_keras_modules():
    assert rt.metrics is keras.metrics and rt.losses is keras.losses
    assert rt.initializers is keras.initializers
    accuracy = rt.metrics.BinaryAccuracy(threshold=0.5)
    accuracy.update_state([[1], [0], [1]], [[0.7], [0.6], [0.2]])
    assert float(accuracy.result()) == pytest.approx(1 / 3)
