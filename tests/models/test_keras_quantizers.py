"""keras.quantizers and the quantized keras.dtype_policies (runtime/keras/quantizers.py,
runtime/keras/dtype_policies.py): values against NumPy written from Keras's documented
formulas, or as Keras 3.15 on TensorFlow 2.21 printed them for the same inputs; configs and
policies round-trip and print as Keras's; staged runs equal eager ones; Model.quantize checks
its arguments and refuses what is not implemented by name."""

import json

import numpy as np
import pytest

import runtime as rt
from runtime import keras

Q = keras.quantizers
DP = keras.dtype_policies
X = np.array([[1.0, -2.5, 0.3], [0.0, 4.0, -1.2]], np.float32)
K5 = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5], [0.1, -0.2], [3.0, 0.0]], np.float32)


# -- names -------------------------------------------------------------------------------------

def test_the_names_keras_exports():
    names = ["AWQConfig", "AbsMaxQuantizer", "Float8QuantizationConfig", "GPTQConfig",
             "Int4QuantizationConfig", "Int8QuantizationConfig", "QuantizationConfig",
             "Quantizer", "abs_max_quantize", "abs_max_quantize_grouped_with_zero_point",
             "compute_float8_amax_history", "compute_float8_scale", "deserialize",
             "fake_quant_with_min_max_vars", "get", "pack_int4", "quantize_and_dequantize",
             "serialize", "unpack_int4"]
    assert sorted(Q.__all__) == sorted(names)
    assert all(callable(getattr(Q, name)) for name in names)
    assert rt.keras.Quantizer is Q.Quantizer
    for name in ["AWQDTypePolicy", "DTypePolicyMap", "GPTQDTypePolicy", "Int4DTypePolicy",
                 "QuantizedDTypePolicy", "QuantizedFloat8DTypePolicy"]:
        assert issubclass(getattr(DP, name), DP.DTypePolicy)


# -- abs-max quantization ------------------------------------------------------------------------

def _abs_max_reference(x, axis, value_range=(-127, 127), epsilon=1e-7):
    scale = np.float32(value_range[1]) / (np.max(np.abs(x), axis=axis, keepdims=True)
                                          + np.float32(epsilon))
    return np.clip(np.round(x * scale), *value_range).astype(np.int8), scale.astype(x.dtype)


@pytest.mark.parametrize("to_numpy", [False, True])
def test_abs_max_quantize_as_keras(to_numpy):
    q, scale = Q.abs_max_quantize(X, axis=-1, to_numpy=to_numpy)
    # Keras 3.15 / TF 2.21: [[51, -127, 15], [0, 127, -38]], scales 127/2.5 and 127/4
    assert q.dtype == rt.int8 and q.numpy().tolist() == [[51, -127, 15], [0, 127, -38]]
    assert scale.dtype == rt.float32 and scale.shape == (2, 1)
    np.testing.assert_allclose(scale.numpy(), [[50.8], [31.75]], rtol=1e-6)
    ref_q, ref_scale = _abs_max_reference(X, -1)
    assert q.numpy().tolist() == ref_q.tolist()
    np.testing.assert_allclose(scale.numpy(), ref_scale, rtol=1e-6)


def test_abs_max_quantize_other_axes_ranges_and_zeros():
    q, scale = Q.abs_max_quantize(X, axis=0, value_range=(-8, 7))
    assert q.numpy().tolist() == [[7, -4, 2], [0, 7, -7]]  # Keras's values
    np.testing.assert_allclose(scale.numpy(), [[7 / 1.0, 7 / 4.0, 7 / 1.2]], rtol=1e-5)
    q, scale = Q.abs_max_quantize(X, axis=None)  # the whole tensor: one (1, 1) scale
    assert scale.shape == (1, 1) and q.numpy().tolist() == [[32, -79, 10], [0, 127, -38]]
    q, scale = Q.abs_max_quantize(np.zeros((2, 2), np.float32), axis=-1)
    assert q.numpy().tolist() == [[0, 0], [0, 0]]
    np.testing.assert_allclose(scale.numpy(), np.full((2, 1), 127 / 1e-7), rtol=1e-6)


def test_abs_max_quantize_staged_equals_eager():
    rng = np.random.RandomState(0)
    x = rng.normal(size=(4, 6)).astype(np.float32)
    staged = rt.function(lambda t: Q.abs_max_quantize(t, axis=-1))(rt.constant(x))
    eager = Q.abs_max_quantize(x, axis=-1)
    for a, b in zip(staged, eager):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    ref_q, _ = _abs_max_reference(x, -1)
    np.testing.assert_array_equal(eager[0].numpy(), ref_q)


def test_abs_max_quantizer_calls_configs_and_checks():
    quantizer = Q.AbsMaxQuantizer()
    assert quantizer.axis is None and quantizer.output_dtype == "int8"
    assert quantizer.get_config() == {"value_range": (-127, 127), "epsilon": 1e-07,
                                      "output_dtype": "int8"}
    q, _ = quantizer(X)  # axis -1 by default
    assert q.numpy().tolist() == [[51, -127, 15], [0, 127, -38]]
    by_columns = Q.AbsMaxQuantizer(axis=0, value_range=(-8, 7))
    assert by_columns.axis == (0,) and by_columns.get_config()["axis"] == (0,)
    assert by_columns(X)[0].numpy().tolist() == [[7, -4, 2], [0, 7, -7]]
    assert by_columns(X, axis=-1)[0].numpy().tolist() == \
        Q.abs_max_quantize(X, -1, (-8, 7))[0].numpy().tolist()
    with pytest.raises(ValueError, match=r"within the interval \[-128, 127\]"):
        Q.AbsMaxQuantizer(value_range=(-200, 127))
    with pytest.raises(NotImplementedError, match="does not implement get_config"):
        Q.Quantizer().get_config()
    assert Q.Quantizer()(3) == 3 and Q.Quantizer().output_dtype == "int8"


# -- grouped quantization with a zero point --------------------------------------------------------

def test_grouped_with_zero_point_device_path_as_keras():
    q, scale, zero = Q.abs_max_quantize_grouped_with_zero_point(K5, block_size=2)
    # Keras 3.15 / TF 2.21's values for these inputs
    assert q.dtype == rt.int8 and zero.dtype == rt.int8 and scale.dtype == rt.float32
    assert q.numpy().tolist() == [[-3, -8], [7, 7], [-8, 7], [7, -8], [7, -1]]
    assert zero.numpy().tolist() == [[-8, 4], [5, -6], [-8, -1]]
    np.testing.assert_allclose(scale.numpy(), [[0.1, 0.0833333], [0.0566667, 0.1133333],
                                               [0.2, 0.1333333]], rtol=1e-5)
    # the last group holds one row (3.0, 0.0), padded with zeros: column 1 is empty, widened
    # to [-1, 1]: scale (2 + 1e-7) / 15
    np.testing.assert_allclose(scale.numpy()[2, 1], (2 + 1e-7) / 15, rtol=1e-6)


def test_grouped_with_zero_point_numpy_path_and_one_group():
    q, scale, zero = Q.abs_max_quantize_grouped_with_zero_point(K5, block_size=2, to_numpy=True)
    assert q.numpy().tolist() == [[-3, -8], [7, 7], [-8, 7], [7, -8], [7, -8]]
    assert zero.numpy().tolist() == [[-8, 4], [5, -6], [-8, -8]]
    np.testing.assert_allclose(scale.numpy()[2], [0.2, 1e-7 / 15], rtol=1e-5)  # no widening
    q, scale, zero = Q.abs_max_quantize_grouped_with_zero_point(K5, block_size=8)
    assert scale.shape == (1, 2) and zero.numpy().tolist() == [[-5, -2]]
    np.testing.assert_allclose(scale.numpy(), [[(3.75 + 1e-7) / 15, (2.5 + 1e-7) / 15]],
                               rtol=1e-6)
    assert q.numpy().tolist() == [[-3, -8], [3, 0], [-8, 7], [-5, -3], [7, -2]]
    # dequantized values lie within one step of the inputs
    steps = q.numpy().astype(np.int32) - zero.numpy().astype(np.int32)
    assert np.all(np.abs(steps * scale.numpy() - K5) <= scale.numpy() * 0.5 + 1e-6)


# -- int4 packing --------------------------------------------------------------------------------------

def test_pack_int4_as_keras_documents():
    values = np.array([[-3, 7], [2, -8], [1, 0]], np.int8)
    packed, shape, rows = Q.pack_int4(values)
    assert packed.numpy().tolist() == [[45, -121], [1, 0]] and packed.dtype == rt.int8
    assert shape == (2, 2) and rows == 3
    assert Q.unpack_int4(packed, rows).numpy().tolist() == values.tolist()
    wide = np.array([[-3, 7, 2], [-8, 1, 0]], np.int8)
    packed, shape, rows = Q.pack_int4(wide, axis=1)
    assert packed.numpy().tolist() == [[125, 2], [24, 0]] and (shape, rows) == ((2, 2), 3)
    assert Q.unpack_int4(packed, rows, axis=1).numpy().tolist() == wide.tolist()


def test_pack_int4_nibbles_and_uint8():
    unsigned = np.array([[3, 15], [2, 8], [1, 0]], np.uint8)
    packed, _, rows = Q.pack_int4(unsigned, dtype="uint8")
    # low nibble: the first of each pair, high nibble: the second
    assert packed.numpy().tolist() == [[3 | 2 << 4, 15 | 8 << 4], [1, 0]]
    assert packed.dtype == rt.uint8
    assert Q.unpack_int4(packed, rows, dtype="uint8").numpy().tolist() == unsigned.tolist()
    # read as signed int4, nibbles 8..15 are -8..-1
    assert Q.unpack_int4(packed, rows).numpy().tolist() == [[3, -1], [2, -8], [1, 0]]


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_pack_unpack_round_trip(axis):
    rng = np.random.RandomState(axis + 5)
    values = rng.randint(-8, 8, size=(3, 5, 4)).astype(np.int8)
    packed, shape, length = Q.pack_int4(values, axis=axis)
    assert length == values.shape[axis] and tuple(packed.shape) == shape
    assert shape[axis] == (values.shape[axis] + 1) // 2
    np.testing.assert_array_equal(Q.unpack_int4(packed, length, axis=axis).numpy(), values)
    staged = rt.function(lambda p: Q.unpack_int4(p, length, axis=axis))(packed)
    np.testing.assert_array_equal(staged.numpy(), values)


def test_pack_int4_checks_dtypes():
    with pytest.raises(ValueError, match="'int8' or 'uint8', but got 'int16'"):
        Q.pack_int4(np.zeros((2, 2), np.int8), dtype="int16")
    with pytest.raises(TypeError, match="Expected int8 tensor for packing, got uint8"):
        Q.pack_int4(np.zeros((2, 2), np.uint8))
    with pytest.raises(TypeError, match="got int32"):
        Q.unpack_int4(np.array([1], np.int32), 1)


# -- fake quantization ------------------------------------------------------------------------------

def _fake_quant_reference(x, low, high, num_bits=8, narrow_range=False):
    """TensorFlow's documented fake quantization, in float32: the range nudged so that zero
    is a step, values clamped to it and rounded to the nearest step; and its gradient's
    masks (inside the nudged range, below it, above it)."""
    f = np.float32
    x, low, high = f(x), f(low), f(high)
    quant_min, quant_max = f(1 if narrow_range else 0), f(2 ** num_bits - 1)
    scale = (high - low) / (quant_max - quant_min)
    from_min = quant_min - low / scale
    if from_min < quant_min:
        zero_point = quant_min
    elif from_min > quant_max:
        zero_point = quant_max
    else:
        zero_point = f(np.floor(from_min) + (from_min - np.floor(from_min) >= 0.5))
    nudged_min, nudged_max = (quant_min - zero_point) * scale, (quant_max - zero_point) * scale
    quant_zero = np.floor(-nudged_min / scale + f(0.5))
    shifted = np.clip(x, nudged_min, nudged_max) - nudged_min
    out = (np.floor(shifted / scale - quant_zero + f(0.5)) * scale).astype(f)
    return out, (x >= nudged_min) & (x <= nudged_max), x < nudged_min, x > nudged_max


XS = np.array([-1.3, -0.2, 0.0, 0.37, 0.9, 2.5], np.float32)


def test_fake_quant_values_as_tensorflow():
    got = Q.fake_quant_with_min_max_vars(XS, -1.0, 1.0)
    # TF 2.21: -1 / (2 / 255) is 127.49999 in float32, so the zero point is 127 and the
    # nudged range [-127, 128] * 2 / 255
    np.testing.assert_array_equal(got.numpy(), np.float32([-127, -25, 0, 47, 115, 128])
                                  * np.float32(2 / 255))
    np.testing.assert_array_equal(got.numpy(), _fake_quant_reference(XS, -1.0, 1.0)[0])
    got = Q.fake_quant_with_min_max_vars(XS, -0.7, 1.3, num_bits=4, narrow_range=True)
    np.testing.assert_allclose(got.numpy(), [-0.71428573, -0.14285715, 0.0, 0.42857146,
                                             0.8571429, 1.2857144], rtol=1e-6)
    got16 = Q.fake_quant_with_min_max_vars(XS.astype(np.float16), -1.0, 1.0)
    assert got16.dtype == rt.float16  # computed in float32, returned in the input's dtype
    want16 = _fake_quant_reference(XS.astype(np.float16).astype(np.float32), -1.0, 1.0)[0]
    np.testing.assert_array_equal(got16.numpy(), want16.astype(np.float16))


@pytest.mark.parametrize("seed", range(6))
def test_fake_quant_matches_the_documented_algorithm(seed):
    rng = np.random.RandomState(seed)
    for _ in range(8):
        low = np.float32(rng.uniform(-3, 1))
        high = np.float32(low + rng.uniform(0.01, 5))
        bits, narrow = int(rng.randint(2, 17)), bool(rng.randint(2))
        x = rng.uniform(low - 1, high + 1, size=40).astype(np.float32)
        got = Q.fake_quant_with_min_max_vars(x, low, high, num_bits=bits, narrow_range=narrow)
        want = _fake_quant_reference(x, low, high, bits, narrow)[0]
        np.testing.assert_array_equal(got.numpy(), want)


def test_fake_quant_gradient_is_tensorflows():
    x = rt.constant(XS)
    low, high = rt.Variable(-1.0), rt.Variable(1.0)
    weights = rt.constant([1.0, 2, 3, 4, 5, 6])
    with rt.GradientTape() as tape:
        tape.watch(x)
        loss = rt.reduce_sum(Q.fake_quant_with_min_max_vars(x, low, high) * weights)
    dx, dlow, dhigh = tape.gradient(loss, [x, low, high])
    # TF 2.21: [0, 2, 3, 4, 5, 0], 1.0, 6.0 (-1.3 below the range, 2.5 above it)
    assert dx.numpy().tolist() == [0.0, 2.0, 3.0, 4.0, 5.0, 0.0]
    assert float(dlow) == 1.0 and float(dhigh) == 6.0
    _, inside, below, above = _fake_quant_reference(XS, -1.0, 1.0)
    np.testing.assert_array_equal(dx.numpy(), np.where(inside, weights.numpy(), 0))
    assert float(dlow) == weights.numpy()[below].sum()
    assert float(dhigh) == weights.numpy()[above].sum()
    edges = rt.constant(np.float32([-1.0, 1.0, -0.5]))  # nudged range: [-0.996, 1.0039]
    with rt.GradientTape() as tape:
        tape.watch(edges)
        loss = rt.reduce_sum(Q.fake_quant_with_min_max_vars(edges, low, high))
    assert [g.numpy().tolist() for g in tape.gradient(loss, [edges, low, high])] == \
        [[0.0, 1.0, 1.0], 1.0, 0.0]


def test_fake_quant_per_channel_as_tensorflow():
    x = np.array([[-1.3, 0.2], [0.5, 2.0], [0.1, -0.4]], np.float32)
    got = Q.fake_quant_with_min_max_vars(x, [-1.0, -0.3], [1.0, 0.6], axis=-1)
    np.testing.assert_allclose(got.numpy(), [[-0.99607849, 0.20117648], [0.50196081, 0.6],
                                             [0.10196079, -0.3]], rtol=1e-6)
    got = Q.fake_quant_with_min_max_vars(x, [-1.0, -0.3, 0.0], [1.0, 0.6, 0.05], axis=0)
    np.testing.assert_allclose(got.numpy(), [[-0.99607849, 0.20392159], [0.50117648, 0.6],
                                             [0.05, 0.0]], rtol=1e-6)
    for row, (lo, hi) in enumerate([(-1.0, 1.0), (-0.3, 0.6), (0.0, 0.05)]):
        np.testing.assert_array_equal(got.numpy()[row], _fake_quant_reference(x[row], lo, hi)[0])
    low, high = rt.Variable([-1.0, -0.3]), rt.Variable([1.0, 0.6])
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        loss = rt.reduce_sum(Q.fake_quant_with_min_max_vars(xt, low, high, axis=1))
    dx, dlow, dhigh = tape.gradient(loss, [xt, low, high])
    assert dx.numpy().tolist() == [[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]]
    assert dlow.numpy().tolist() == [1.0, 1.0] and dhigh.numpy().tolist() == [0.0, 1.0]


def test_fake_quant_staged_zero_range_and_checks():
    staged = rt.function(lambda t: Q.fake_quant_with_min_max_vars(t, -1.0, 1.0))
    np.testing.assert_array_equal(staged(rt.constant(XS)).numpy(),
                                  Q.fake_quant_with_min_max_vars(XS, -1.0, 1.0).numpy())
    low, high = rt.Variable(-1.0), rt.Variable(1.0)

    @rt.function
    def gradients(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            loss = rt.reduce_sum(Q.fake_quant_with_min_max_vars(x, low, high)
                                 * rt.constant([1.0, 2, 3, 4, 5, 6]))
        return tape.gradient(loss, [x, low, high])

    dx, dlow, dhigh = gradients(rt.constant(XS))
    assert (dx.numpy().tolist(), float(dlow), float(dhigh)) == \
        ([0.0, 2.0, 3.0, 4.0, 5.0, 0.0], 1.0, 6.0)
    assert Q.fake_quant_with_min_max_vars(XS, 0.0, 0.0).numpy().tolist() == [0.0] * 6
    x, low, high = rt.constant([-1.0, 0.5]), rt.Variable(0.0), rt.Variable(0.0)
    with rt.GradientTape() as tape:  # TF: a [0, 0] range passes the whole gradient to x
        tape.watch(x)
        loss = rt.reduce_sum(Q.fake_quant_with_min_max_vars(x, low, high) * [2.0, 3.0])
    assert [np.asarray(g).tolist() for g in tape.gradient(loss, [x, low, high])] == \
        [[2.0, 3.0], 0.0, 0.0]
    with pytest.raises(rt.errors.InvalidArgumentError, match="between 2 and 16"):
        Q.fake_quant_with_min_max_vars(XS, -1.0, 1.0, num_bits=1)
    with pytest.raises(rt.errors.InvalidArgumentError, match="min has incorrect shape"):
        Q.fake_quant_with_min_max_vars(np.zeros((2, 3), np.float32), [0.0, 0.0], [1.0, 1.0],
                                       axis=-1)


# -- float8 ------------------------------------------------------------------------------------

def test_float8_scale_history_and_round_trip():
    amax = np.array([2.0, 0.0, np.inf], np.float32)
    scale = Q.compute_float8_scale(amax, np.full(3, 0.5, np.float32), 448.0, margin=1)
    assert scale.dtype == rt.float32
    np.testing.assert_allclose(scale.numpy(), [2.0 * 2 / 448.0, 0.5, 0.5], rtol=1e-6)
    history = Q.compute_float8_amax_history(np.array([-7.0, 3.0], np.float32),
                                            rt.constant([1.0, 2.0, 3.0, 4.0]))
    assert history.numpy().tolist() == [7.0, 3.0, 4.0, 1.0]
    x = np.array([1.0, 0.3, 1000.0, -2000.0], np.float32)
    got = Q.quantize_and_dequantize(x, 0.5, "float8_e4m3fn", "float32")
    # /0.5 -> [2, 0.6, 2000, -4000] clipped to +-448, rounded to float8_e4m3fn, times 0.5
    assert got.numpy().tolist() == [1.0, 0.3125, 224.0, -224.0] and got.dtype == rt.float32


# -- quantization configs ----------------------------------------------------------------------

def test_config_serialization_as_keras():
    int8 = Q.Int8QuantizationConfig()
    assert int8.mode == "int8" and isinstance(int8.activation_quantizer, Q.AbsMaxQuantizer)
    assert Q.serialize(int8) == {
        "module": "keras.quantizers", "class_name": "Int8QuantizationConfig",
        "config": {"weight_quantizer": None, "activation_quantizer": {
            "module": "keras.quantizers", "class_name": "AbsMaxQuantizer",
            "config": {"value_range": (-127, 127), "epsilon": 1e-07, "output_dtype": "int8"},
            "registered_name": None}},
        "registered_name": None}
    assert Q.serialize(Q.Int4QuantizationConfig())["config"] == {
        "weight_quantizer": None, "activation_quantizer": None, "block_size": 128}
    assert Q.serialize(Q.Float8QuantizationConfig())["config"] == {}
    assert Q.serialize(None) is None and Q.deserialize(None) is None


@pytest.mark.parametrize("make", [
    lambda: Q.Int8QuantizationConfig(),
    lambda: Q.Int8QuantizationConfig(weight_quantizer=Q.AbsMaxQuantizer(axis=0),
                                     activation_quantizer=None),
    lambda: Q.Int4QuantizationConfig(),
    lambda: Q.Int4QuantizationConfig(block_size=None,
                                     weight_quantizer=Q.AbsMaxQuantizer(value_range=(-8, 7))),
    lambda: Q.Float8QuantizationConfig(),
    lambda: Q.GPTQConfig(["text"], None, weight_bits=3, group_size=-1, symmetric=True),
    lambda: Q.AWQConfig(None, None, num_grid_points=7, group_size=64),
    lambda: Q.AbsMaxQuantizer(axis=(0, 1), value_range=(-8, 7), epsilon=1e-3),
])
def test_configs_round_trip(make):
    original = make()
    for config in (Q.serialize(original), json.loads(json.dumps(Q.serialize(original)))):
        back = Q.deserialize(config)
        assert type(back) is type(original)
        assert json.dumps(Q.serialize(back)) == json.dumps(Q.serialize(original))
    again = type(original).from_config(original.get_config())
    assert json.dumps(Q.serialize(again)) == json.dumps(Q.serialize(original))


def test_gptq_and_awq_configs_hold_their_arguments():
    gptq = Q.GPTQConfig(dataset=["a"], tokenizer=str.split)
    assert gptq.mode == "gptq" and gptq.dtype_policy_string() == "gptq/4/128"
    assert gptq.dataset == ["a"] and gptq.tokenizer is str.split
    assert gptq.get_config() == {
        "dataset": None, "tokenizer": None, "weight_bits": 4, "num_samples": 128,
        "per_channel": True, "sequence_length": 512, "hessian_damping": 0.01,
        "group_size": 128, "symmetric": False, "activation_order": False,
        "quantization_layer_structure": None}
    awq = Q.AWQConfig(None, None, group_size=-1)
    assert awq.mode == "awq" and awq.dtype_policy_string() == "awq/4/-1"
    assert awq.get_config() == {
        "dataset": None, "tokenizer": None, "weight_bits": 4, "num_samples": 128,
        "sequence_length": 512, "group_size": -1, "num_grid_points": 20,
        "quantization_layer_structure": None}
    with pytest.raises(TypeError):
        Q.GPTQConfig(None, None, 4)  # the settings are keyword-only
    with pytest.raises(TypeError):
        Q.GPTQConfig(None)


@pytest.mark.parametrize("make, message", [
    (lambda: Q.GPTQConfig(None, None, weight_bits=5), "Unsupported weight_bits 5"),
    (lambda: Q.GPTQConfig(None, None, group_size=0), "Invalid group_size"),
    (lambda: Q.GPTQConfig(None, None, hessian_damping=2), "hessian_damping must be between"),
    (lambda: Q.GPTQConfig(None, None, num_samples=0), "num_samples must be a positive"),
    (lambda: Q.AWQConfig(None, None, weight_bits=8), "AWQ only supports 4-bit"),
    (lambda: Q.AWQConfig(None, None, num_grid_points=0), "num_grid_points must be"),
    (lambda: Q.AWQConfig(None, None, sequence_length=-1), "sequence_length must be"),
    (lambda: Q.Int4QuantizationConfig(block_size=-2), "block_size must be None, -1"),
    (lambda: Q.Int4QuantizationConfig(weight_quantizer=Q.AbsMaxQuantizer(value_range=(-8, 7))),
     "does not support custom quantizers"),
    (lambda: Q.Int4QuantizationConfig(block_size=None, weight_quantizer=Q.AbsMaxQuantizer()),
     r"value_range=\(-8, 7\)"),
    (lambda: Q.Int8QuantizationConfig(
        weight_quantizer=Q.AbsMaxQuantizer(output_dtype="int16")), "output_dtype='int8'"),
])
def test_config_checks_as_keras(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_get_and_base_config():
    assert Q.get(None) is None
    made = Q.get("AbsMaxQuantizer")
    assert isinstance(made, Q.AbsMaxQuantizer) and made.axis is None
    assert isinstance(Q.get("abs_max_quantizer", axis=1), Q.AbsMaxQuantizer)
    assert Q.get("abs_max_quantizer", axis=1).axis == (1,)
    quantizer = Q.AbsMaxQuantizer(axis=0)
    assert Q.get(quantizer) is quantizer
    assert Q.get(Q.serialize(quantizer)).axis == (0,)
    with pytest.raises(ValueError, match="Could not interpret quantizer identifier: nope"):
        Q.get("nope")
    with pytest.raises(ValueError, match="Could not interpret quantizer identifier"):
        Q.get(Q.Int8QuantizationConfig())  # a config is not a quantizer
    with pytest.raises(NotImplementedError, match="Do not instantiate QuantizationConfig"):
        _ = Q.QuantizationConfig().mode
    with pytest.raises(ValueError, match="Unknown quantizer class 'Nope'"):
        Q.deserialize({"class_name": "Nope", "config": {}})


def test_a_registered_quantizer_round_trips():
    @keras.saving.register_keras_serializable("H1Test")
    class Halver(Q.Quantizer):
        def __call__(self, x):
            return x / 2

        def get_config(self):
            return {"output_dtype": self.output_dtype}

    config = Q.serialize(Halver())
    assert config["class_name"] == "Halver" and config["registered_name"] == "H1Test>Halver"
    assert isinstance(Q.deserialize(config), Halver)
    wrapped = Q.deserialize(Q.serialize(Q.Int8QuantizationConfig(weight_quantizer=Halver())))
    assert isinstance(wrapped.weight_quantizer, Halver)


# -- quantized dtype policies --------------------------------------------------------------------

def test_quantized_policies_as_keras():
    policy = DP.QuantizedDTypePolicy("int8", "float32")
    assert repr(policy) == '<QuantizedDTypePolicy "int8_from_float32">'
    assert (policy.name, policy.compute_dtype, policy.variable_dtype, policy.quantization_mode) \
        == ("int8_from_float32", "float32", "float32", "int8")
    assert DP.serialize(policy) == {"module": "keras.dtype_policies",
                                    "class_name": "QuantizedDTypePolicy",
                                    "config": {"mode": "int8", "source_name": "float32"},
                                    "registered_name": None}
    assert DP.deserialize(DP.serialize(policy)) == policy
    assert repr(DP.QuantizedDTypePolicy("int8")) == '<QuantizedDTypePolicy "int8_from_float32">'
    float8 = DP.QuantizedFloat8DTypePolicy("float8", "bfloat16", amax_history_length=16)
    assert repr(float8) == '<QuantizedFloat8DTypePolicy "float8_from_bfloat16">'
    assert float8.get_config() == {"mode": "float8", "source_name": "bfloat16",
                                   "amax_history_length": 16}
    assert float8.compute_dtype == "bfloat16" and float8.default_amax_history_length == 1024
    int4 = DP.Int4DTypePolicy("int4/64", "float32")
    assert repr(int4) == '<Int4DTypePolicy "int4/64_from_float32">'
    assert (int4.block_size, int4.mode, int4.quantization_mode) == (64, "int4", "int4")
    assert int4.get_config() == {"mode": "int4/64", "source_name": "float32"}
    gptq = DP.GPTQDTypePolicy("gptq/4/128", "float32")
    assert (gptq.weight_bits, gptq.group_size, gptq.mode) == (4, 128, "gptq")
    assert gptq.get_config() == {"mode": "gptq/4/128", "source_name": "float32"}
    awq = DP.AWQDTypePolicy("awq/4/-1", "bfloat16")
    assert repr(awq) == '<AWQDTypePolicy "awq/4/-1_from_bfloat16">'
    assert awq.get_config() == {"mode": "awq/4/-1", "source_name": "bfloat16"}
    assert DP.DTypePolicy("float32").quantization_mode is None


def test_quantized_policies_compare_by_class_and_settings():
    policy = DP.QuantizedDTypePolicy("int8", "float32")
    assert policy == DP.QuantizedDTypePolicy("int8", "float32")
    assert policy != DP.DTypePolicy("float32") and DP.DTypePolicy("float32") != policy
    assert policy != DP.QuantizedFloat8DTypePolicy("int8", "float32")
    assert DP.Int4DTypePolicy("int4/64", "float32") != DP.Int4DTypePolicy("int4/32", "float32")
    assert DP.Int4DTypePolicy("int4/64", "float32") != DP.QuantizedDTypePolicy("int4",
                                                                                "float32")
    assert len({policy, DP.QuantizedDTypePolicy("int8", "float32")}) == 1


@pytest.mark.parametrize("name, cls, dtype", [
    ("int8_from_float32", "QuantizedDTypePolicy", "float32"),
    ("int4_from_bfloat16", "QuantizedDTypePolicy", "bfloat16"),
    ("int4/32_from_float32", "Int4DTypePolicy", "float32"),
    ("gptq/3/-1_from_float32", "GPTQDTypePolicy", "float32"),
    ("awq/4/64_from_float16", "AWQDTypePolicy", "float16"),
    ("float8_from_float32", "QuantizedFloat8DTypePolicy", "float32"),
])
def test_get_reads_quantized_names(name, cls, dtype):
    policy = DP.get(name)
    assert type(policy).__name__ == cls and policy.name == name
    assert policy.compute_dtype == policy.variable_dtype == dtype
    assert DP.deserialize(json.loads(json.dumps(DP.serialize(policy)))) == policy


@pytest.mark.parametrize("make, error, message", [
    (lambda: DP.QuantizedDTypePolicy("int3"), ValueError, "Invalid quantization mode"),
    (lambda: DP.QuantizedDTypePolicy("int8", "float16"), ValueError, "doesn't work well"),
    (lambda: DP.QuantizedDTypePolicy("int8", "foo"), ValueError, "Cannot convert 'foo'"),
    (lambda: DP.QuantizedFloat8DTypePolicy("float8", amax_history_length=2.0), TypeError,
     "must be an integer"),
    (lambda: DP.Int4DTypePolicy("int4"), ValueError, "Expected format 'int4/<block_size>'"),
    (lambda: DP.Int4DTypePolicy("int4/x"), ValueError, "<block_size> must be an integer"),
    (lambda: DP.Int4DTypePolicy("int4/0"), ValueError, "but got 0 from 'int4/0'"),
    (lambda: DP.GPTQDTypePolicy("gptq/5/1"), ValueError, "2, 3, 4, and 8, but got 5"),
    (lambda: DP.GPTQDTypePolicy("gptq/4/-2"), ValueError, "Invalid group_size in mode"),
    (lambda: DP.GPTQDTypePolicy("gptq/4"), ValueError,
     "Expected format 'gptq/<weight_bits>/<group_size>'"),
    (lambda: DP.AWQDTypePolicy("awq/3/1"), ValueError, "AWQ only supports 4-bit"),
    (lambda: DP.get("int8"), ValueError, "valid pair"),
    (lambda: DP.get("int8_from_float32_from_x"), ValueError, "valid pair"),
])
def test_policy_checks_as_keras(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_dtype_policy_map_lookup_and_edits():
    policy_map = DP.DTypePolicyMap()
    policy_map["a/dense"] = "int8_from_float32"
    policy_map["enc/.*"] = DP.DTypePolicy("bfloat16")
    assert (policy_map.name, policy_map.compute_dtype, policy_map.quantization_mode) == \
        ("map_float32", "float32", None)
    assert len(policy_map) == 2 and list(policy_map) == ["a/dense", "enc/.*"]
    assert repr(policy_map["a/dense"]) == '<QuantizedDTypePolicy "int8_from_float32">'
    assert policy_map["enc/x/y"].name == "bfloat16"  # a regular expression over the path
    assert policy_map["other"].name == "float32"  # the default policy
    assert "enc/x" not in policy_map and "a/dense" in policy_map
    with pytest.raises(ValueError, match="already exist in the DTypePolicyMap"):
        policy_map["a/dense"] = "float32"
    with pytest.raises(ValueError, match="Cannot interpret the assigned value"):
        policy_map["b"] = 3
    policy_map["enc/a.*"] = "float16"
    with pytest.raises(ValueError, match="matches multiple dtype policy"):
        policy_map["enc/ab"]
    del policy_map["enc/a.*"]
    with pytest.raises(KeyError):
        del policy_map["zz"]
    with pytest.raises(ValueError, match="cannot be a `DTypePolicyMap`"):
        DP.DTypePolicyMap(default_policy=policy_map)
    with pytest.raises(TypeError, match="must be a dict"):
        DP.DTypePolicyMap(policy_map=[1])


def test_dtype_policy_map_serialization_as_keras():
    policy_map = DP.DTypePolicyMap()
    policy_map["a/dense"] = "int8_from_float32"
    policy_map["enc/.*"] = DP.DTypePolicy("bfloat16")
    # without a default policy, the entries are written without their source dtype
    assert DP.serialize(policy_map) == {
        "module": "keras.dtype_policies", "class_name": "DTypePolicyMap",
        "config": {"default_policy": None, "policy_map": {
            "a/dense": {"module": "keras.dtype_policies", "class_name": "QuantizedDTypePolicy",
                        "config": {"mode": "int8", "source_name": None},
                        "registered_name": None},
            "enc/.*": {"module": "keras", "class_name": "DTypePolicy",
                       "config": {"name": None}, "registered_name": None}}},
        "registered_name": None}
    assert policy_map["enc/q"].name == "bfloat16"  # writing the config changed nothing
    back = DP.deserialize(json.loads(json.dumps(DP.serialize(policy_map))))
    assert isinstance(back, DP.DTypePolicyMap) and list(back) == ["a/dense", "enc/.*"]
    assert back["a/dense"] == DP.QuantizedDTypePolicy("int8", "float32")
    assert back["enc/q"].name == "float32"  # the global policy's dtype
    kept = DP.DTypePolicyMap(default_policy="bfloat16",
                             policy_map={"x": DP.Int4DTypePolicy("int4/8", "float32")})
    assert kept.name == "map_bfloat16"
    assert kept.get_config() == {"default_policy": "bfloat16", "policy_map": {"x": {
        "module": "keras.dtype_policies", "class_name": "Int4DTypePolicy",
        "config": {"mode": "int4/8", "source_name": "float32"}, "registered_name": None}}}
    again = DP.deserialize(DP.serialize(kept))
    assert again == kept and again["x"].block_size == 8
    assert again.default_policy == DP.DTypePolicy("bfloat16")


def test_a_layer_refuses_a_quantized_policy():
    for dtype in ("int8_from_float32", DP.QuantizedDTypePolicy("int8", "float32"),
                  DP.DTypePolicyMap(), DP.serialize(DP.Int4DTypePolicy("int4/8", "float32"))):
        with pytest.raises(NotImplementedError, match="quantized"):
            keras.layers.Dense(2, dtype=dtype)


# -- Model.quantize ----------------------------------------------------------------------------

def _model():
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3)])
    model.build((None, 4))
    return model


@pytest.mark.parametrize("mode, config, algorithm", [
    ("gptq", Q.GPTQConfig(["a b"], str.split), "GPTQ"),
    (None, Q.AWQConfig(["a b"], str.split), "AWQ"),
])
def test_model_quantize_refuses_calibration_runs_by_name(mode, config, algorithm):
    with pytest.raises(NotImplementedError, match=f"{algorithm} quantization needs a "
                                                  "calibration run"):
        _model().quantize(mode, config=config)


@pytest.mark.parametrize("mode", ["int8", "int4", "float8"])
def test_model_quantize_refuses_quantized_layers(mode):
    model = _model()
    with pytest.raises(NotImplementedError, match=f"quantize\\('{mode}'\\): quantized layers"):
        model.quantize(mode)
    assert model.layers[0].kernel.dtype == rt.float32  # nothing was changed


@pytest.mark.parametrize("kwargs, message", [
    ({"mode": "int3"}, "Invalid quantization mode"),
    ({}, "You must provide either `mode` or `config`"),
    ({"mode": "gptq"}, "you must pass a `GPTQConfig`"),
    ({"mode": "awq"}, "you must pass a `AWQConfig`"),
    ({"mode": "int8", "config": Q.Int4QuantizationConfig()}, "Contradictory arguments"),
    ({"config": {"mode": "int8"}}, "must be an instance of `QuantizationConfig`"),
    ({"mode": "int8", "filters": 3}, "The `filters` argument must be"),
])
def test_model_quantize_checks_its_arguments_as_keras(kwargs, message):
    with pytest.raises(ValueError, match=message):
        _model().quantize(**kwargs)


def test_model_quantize_keywords_are_strict():
    with pytest.raises(TypeError):
        _model().quantize("int8", confg=None)
