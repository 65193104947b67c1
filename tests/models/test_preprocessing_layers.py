"""Keras 3's preprocessing layers: the lookups, encodings and TextVectorization against the
outputs Keras documents in its docstrings and NumPy formulas; Resizing and CenterCrop against
NumPy (TF's half-pixel sampling written out here); the augmentation layers against NumPy's
rotations, shifts and flips for fixed draws, identity at inference; in Dataset.map, in compiled
functions, saved with a model, and inside fit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
L = keras.layers


def _np(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


# -- StringLookup: Keras's docstring examples -------------------------------------------------
def test_string_lookup_adapt_orders_by_frequency_then_inverse_token_order():
    data = [["a", "c", "d"], ["d", "z", "b"]]
    layer = L.StringLookup()
    layer.adapt(data)
    assert layer.get_vocabulary() == ["[UNK]", "d", "z", "c", "b", "a"]
    out = layer(data)
    assert out.dtype == rt.int64
    np.testing.assert_array_equal(_np(out), [[5, 3, 1], [1, 2, 4]])


@pytest.mark.parametrize("mode, expected", [
    ("multi_hot", [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]]),
    ("count", [[0, 1, 0, 1, 2], [2, 0, 1, 0, 1]]),
])
def test_string_lookup_multi_hot_and_count(mode, expected):
    layer = L.StringLookup(vocabulary=["a", "b", "c", "d"], output_mode=mode)
    out = layer([["a", "c", "d", "d"], ["d", "z", "b", "z"]])
    assert out.dtype == rt.int64
    np.testing.assert_array_equal(_np(out), expected)


def test_string_lookup_one_hot():
    layer = L.StringLookup(vocabulary=["a", "b", "c", "d"], output_mode="one_hot")
    np.testing.assert_array_equal(_np(layer(["a", "b", "c", "d", "z"])),
                                  np.eye(5)[[1, 2, 3, 4, 0]])


def test_string_lookup_tf_idf_given_weights_oov_weight_is_their_mean_or_given():
    data = [["a", "c", "d", "d"], ["d", "z", "b", "z"]]
    layer = L.StringLookup(output_mode="tf_idf")
    layer.set_vocabulary(["a", "b", "c", "d"], idf_weights=[0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(_np(layer(data)), [[0, 0.25, 0, 0.6, 0.8],
                                                  [1.0, 0, 0.75, 0, 0.4]], rtol=1e-6)
    layer = L.StringLookup(output_mode="tf_idf")
    layer.set_vocabulary(["[UNK]", "a", "b", "c", "d"], idf_weights=[0.9, 0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(_np(layer(data)), [[0, 0.25, 0, 0.6, 0.8],
                                                  [1.8, 0, 0.75, 0, 0.4]], rtol=1e-6)


def test_string_lookup_tf_idf_adapt_uses_keras_idf_formula():
    docs = [["b", "a"], ["c", "a"], ["a", "a"]]
    layer = L.StringLookup(output_mode="tf_idf")
    layer.adapt(docs)
    vocab = layer.get_vocabulary()
    assert vocab == ["[UNK]", "a", "c", "b"]
    idf = {t: np.log(1 + 3 / (1 + sum(t in d for d in docs))) for t in "abc"}
    expected = [np.mean([idf["a"], idf["c"], idf["b"]]) * 1, 2 * idf["a"], 0, 0]
    np.testing.assert_allclose(_np(layer([["a", "a", "z"]]))[0], expected, rtol=1e-6)


def test_string_lookup_invert_and_round_trip():
    vocab = ["a", "b", "c", "d"]
    data = [["a", "c", "d"], ["d", "z", "b"]]
    forward = L.StringLookup(vocabulary=vocab)
    inverse = L.StringLookup(vocabulary=vocab, invert=True)
    expected = [[b"a", b"c", b"d"], [b"d", b"[UNK]", b"b"]]
    assert _np(inverse([[1, 3, 4], [4, 0, 2]])).tolist() == expected
    assert _np(inverse(forward(data))).tolist() == expected


def test_string_lookup_mask_token_and_vocabulary_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\n", encoding="utf-8")
    layer = L.StringLookup(vocabulary=str(path), mask_token="")
    assert layer.get_vocabulary() == ["", "[UNK]", "a", "b", "c"]
    assert layer.vocabulary_size() == 5
    np.testing.assert_array_equal(_np(layer([["c", "", "q"]])), [[4, 0, 1]])


def test_string_lookup_refuses_bad_arguments_by_name():
    with pytest.raises(ValueError, match="output_mode"):
        L.StringLookup(output_mode="bag")
    with pytest.raises(ValueError, match="invert"):
        L.StringLookup(invert=True, output_mode="count")
    with pytest.raises(ValueError, match="repeated"):
        L.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(TypeError, match="max_token"):
        L.StringLookup(max_token=3)
    with pytest.raises(rt.errors.InvalidArgumentError, match="num_oov_indices"):
        L.StringLookup(vocabulary=["a"], num_oov_indices=0)(["b"])


def test_string_lookup_several_oov_indices_hash_as_keras():
    layer = L.StringLookup(vocabulary=["a", "b", "c", "d"], num_oov_indices=2)
    # Keras's docstring: "m" takes OOV id 0 and "z" id 1
    np.testing.assert_array_equal(_np(layer([["a", "c", "d"], ["m", "z", "b"]])),
                                  [[2, 4, 5], [0, 1, 3]])


# -- Hashing ----------------------------------------------------------------------------------
def test_hashing_keras_docstring_examples():
    out = L.Hashing(num_bins=3)([["A"], ["B"], ["C"], ["D"], ["E"]])
    assert out.dtype == rt.int64
    np.testing.assert_array_equal(_np(out), [[1], [0], [1], [1], [2]])
    masked = L.Hashing(num_bins=3, mask_value="")([["A"], ["B"], [""], ["C"], ["D"]])
    np.testing.assert_array_equal(_np(masked), [[1], [1], [0], [2], [2]])


def test_hashing_fingerprint_is_farmhash64_on_reference_vectors():
    from runtime.layers.preprocessing.farmhash import fingerprint64
    # FarmHash's Fingerprint64 of "" is its constant k2, and ids above depend on all lengths'
    # branches; an integer hashes as its decimal text
    assert fingerprint64(b"") == 0x9AE16A3B2F90404F
    # tf.strings.to_hash_bucket_fast(strings, 2**62) in TensorFlow 2.21, for every branch of
    # the algorithm (lengths 0-16, 17-32, 33-64 and the 64-byte loop)
    lengths = (3, 5, 12, 20, 40, 64, 65, 130, 300)
    tensorflow = [3225035365289182248, 2251359278607051727, 2917594698257753930,
                  1516716198070093992, 3166589992380210024, 2325104078259550602,
                  1750252573709625707, 1333027554596271831, 877258984558720016]
    strings = [bytes(i * 7 % 256 for i in range(n)) for n in lengths]
    assert [fingerprint64(b) % 2**62 for b in strings] == tensorflow
    layer = L.Hashing(num_bins=7)
    np.testing.assert_array_equal(_np(layer(np.array([[1, 25]]))),
                                  _np(layer([["1", "25"]])))
    one_hot = _np(L.Hashing(num_bins=4, output_mode="one_hot")(["a", "b", "c"]))
    ids = _np(L.Hashing(num_bins=4)(["a", "b", "c"]))
    np.testing.assert_array_equal(one_hot, np.eye(4)[ids])
    with pytest.raises(NotImplementedError, match="salt"):
        L.Hashing(num_bins=3, salt=1)


# -- IntegerLookup ----------------------------------------------------------------------------
def test_integer_lookup_adapt_and_oov_slots():
    layer = L.IntegerLookup()
    layer.adapt(np.array([3, 3, 7, 1, 7, 5]))
    # counts 2, 2, 1, 1: ties in decreasing value order, as Keras sorts them
    assert layer.get_vocabulary() == [-1, 7, 3, 5, 1]
    np.testing.assert_array_equal(_np(layer(np.array([3, 9, 1]))), [2, 0, 4])
    layer = L.IntegerLookup(mask_token=0, num_oov_indices=2, vocabulary=[12, 36])
    assert layer.get_vocabulary() == [0, -1, -1, 12, 36]
    # an unknown value v takes OOV slot 1 + v mod 2 (Keras's floormod for integers)
    np.testing.assert_array_equal(_np(layer(np.array([[12, 0, 5, 36, 8]]))), [[3, 0, 2, 4, 1]])


def test_integer_lookup_farmhash_oov_method_hashes_the_decimal_text():
    from runtime.layers.preprocessing.farmhash import fingerprint64
    layer = L.IntegerLookup(vocabulary=[1, 2], num_oov_indices=3, oov_method="farmhash")
    values = [7, 8, 9, 10, 1]
    expected = [fingerprint64(str(v).encode()) % 3 for v in values[:4]] + [3]
    np.testing.assert_array_equal(_np(layer(np.array(values))), expected)
    with pytest.raises(NotImplementedError, match="salt"):
        L.IntegerLookup(salt=3)
    with pytest.raises(ValueError, match="oov_method"):
        L.IntegerLookup(oov_method="modulo")


def test_integer_lookup_max_tokens_and_invert():
    data = np.array([[12, 1138, 42], [42, 1000, 36]])  # Keras's docstring example
    layer = L.IntegerLookup(max_tokens=3)
    layer.adapt(data)
    assert layer.get_vocabulary() == [-1, 42, 1138]
    inverse = L.IntegerLookup(vocabulary=[12, 36, 1138, 42], invert=True)
    np.testing.assert_array_equal(_np(inverse(np.array([[1, 3, 4], [4, 0, 2]]))),
                                  [[12, 1138, 42], [42, -1, 36]])


# -- CategoryEncoding, Discretization -----------------------------------------------------------
def test_category_encoding_keras_docstring_examples():
    one_hot = L.CategoryEncoding(num_tokens=4, output_mode="one_hot")
    np.testing.assert_array_equal(_np(one_hot([3, 2, 0, 1])), np.eye(4)[[3, 2, 0, 1]])
    multi = L.CategoryEncoding(num_tokens=4, output_mode="multi_hot")
    np.testing.assert_array_equal(_np(multi([[0, 1], [0, 0], [1, 2], [3, 1]])),
                                  [[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]])
    count = L.CategoryEncoding(num_tokens=4, output_mode="count")
    weights = np.array([[.1, .2], [.1, .1], [.2, .3], [.4, .2]])
    np.testing.assert_allclose(_np(count([[0, 1], [0, 0], [1, 2], [3, 1]],
                                         count_weights=weights)),
                               [[.1, .2, 0, 0], [.2, 0, 0, 0], [0, .2, .3, 0], [0, .2, 0, .4]],
                               rtol=1e-6)
    # a rank-1 input is one sample for multi_hot and count
    np.testing.assert_array_equal(_np(multi([0, 1, 3])), [1, 1, 0, 1])
    with pytest.raises(rt.errors.InvalidArgumentError, match="num_tokens"):
        multi([[4]])


def test_discretization_boundaries_and_adapt_quantiles():
    layer = L.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    np.testing.assert_array_equal(_np(layer([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]])),
                                  [[0, 2, 3, 1], [1, 3, 2, 1]])  # Keras's docstring
    data = np.array([0.1, 0.5, 0.3, 0.9, 0.7, 0.2, 0.4, 0.8])
    layer = L.Discretization(num_bins=4)
    layer.adapt(data)
    ordered = np.sort(data)
    expected = [np.interp(i * 8 / 4 - 1, np.arange(8), ordered) for i in (1, 2, 3)]
    np.testing.assert_allclose(layer.bin_boundaries, expected, rtol=1e-6)
    out = layer(data)
    assert out.dtype == rt.int32
    # Keras 3's output: the float64 data is cast to float32 first, so 0.2 falls at a boundary
    np.testing.assert_array_equal(_np(out), [0, 2, 1, 3, 3, 1, 2, 3])
    np.testing.assert_array_equal(_np(out), np.digitize(data.astype(np.float32),
                                                        layer.bin_boundaries))


# -- TextVectorization --------------------------------------------------------------------------
def test_text_vectorization_int_mode_standardizes_pads_and_truncates():
    layer = L.TextVectorization(max_tokens=6, output_sequence_length=4)
    layer.adapt(np.array(["The cat, sat!", "the dog  sat", "a cat"]))
    # "" (mask) and "[UNK]", then by count (the 2, cat 2, sat 2; ties in decreasing order)
    assert layer.get_vocabulary() == ["", "[UNK]", "the", "sat", "cat", "dog"]
    out = layer(np.array(["the Cat sat on the mat", "dog"]))
    assert out.dtype == rt.int64
    np.testing.assert_array_equal(_np(out), [[2, 4, 3, 1], [5, 0, 0, 0]])
    ragged = L.TextVectorization(vocabulary=["a", "b"])
    np.testing.assert_array_equal(_np(ragged([["a b a"], ["b"]])), [[2, 3, 2], [3, 0, 0]])


def test_text_vectorization_keras_docstring_vocabulary_example():
    layer = L.TextVectorization(max_tokens=5000, output_mode="int", output_sequence_length=4,
                                vocabulary=["earth", "wind", "and", "fire"])
    out = layer([["earth wind and fire"], ["fire and earth michigan"]])
    np.testing.assert_array_equal(_np(out), [[2, 3, 4, 5], [5, 4, 2, 1]])


def test_text_vectorization_ngrams_multi_hot_and_tf_idf():
    layer = L.TextVectorization(ngrams=2, output_mode="multi_hot")
    layer.adapt(["a b c", "a b"])
    assert layer.get_vocabulary() == ["[UNK]", "b", "a b", "a", "c", "b c"]
    np.testing.assert_array_equal(_np(layer(["a b d"])), [[1, 1, 1, 1, 0, 0]])
    docs = ["a b c", "a b a"]
    layer = L.TextVectorization(output_mode="tf_idf")
    layer.adapt(docs)
    assert layer.get_vocabulary() == ["[UNK]", "a", "b", "c"]
    idf = {t: np.log(1 + 2 / (1 + sum(t in d.split() for d in docs))) for t in "abc"}
    oov = np.mean(list(idf.values()))
    np.testing.assert_allclose(_np(layer(["a a c z"])), [[oov, 2 * idf["a"], 0, idf["c"]]],
                               rtol=1e-6)


def test_text_vectorization_split_and_standardize_options_and_callables():
    chars = L.TextVectorization(split="character", standardize=None)
    chars.adapt(["abca"])
    assert chars.get_vocabulary() == ["", "[UNK]", "a", "c", "b"]
    np.testing.assert_array_equal(_np(chars(["cab"])), [[3, 2, 4]])

    def upper_split(texts):
        return rt.strings.split(texts, sep="-")

    custom = L.TextVectorization(split=upper_split, standardize="lower",
                                 vocabulary=["x!", "y"])
    np.testing.assert_array_equal(_np(custom(["X!-Y-z"])), [[2, 3, 1]])
    with pytest.raises(ValueError, match="standardize"):
        L.TextVectorization(standardize="upper")
    with pytest.raises(ValueError, match="output_sequence_length"):
        L.TextVectorization(output_mode="count", output_sequence_length=3)


def test_text_vectorization_in_dataset_map_and_compiled_function():
    layer = L.TextVectorization(vocabulary=["hello", "world"], output_sequence_length=3)
    ds = rt.data.Dataset.from_tensor_slices(["hello world", "world", "bye"]).batch(2)
    batches = [_np(b) for b in ds.map(lambda t: layer(t))]
    np.testing.assert_array_equal(batches[0], [[2, 3, 0], [3, 0, 0]])
    np.testing.assert_array_equal(batches[1], [[1, 0, 0]])
    single = rt.data.Dataset.from_tensor_slices(["world hello"]).map(lambda t: layer(t))
    np.testing.assert_array_equal(_np(next(iter(single))), [3, 2, 0])

    @rt.function
    def vectorize(texts):
        return layer(texts)

    np.testing.assert_array_equal(_np(vectorize(rt.constant(["hello hello"]))), [[2, 2, 0]])
    with pytest.raises(Exception, match="(?i)pyfunc|py_func|numpy_function|string"):
        rt.function(lambda t: layer(t), jit_compile=True)(rt.constant(["hello"]))


def test_text_classifier_trains_and_saves_with_its_vocabulary(tmp_path):
    texts = np.array(["good movie great", "bad film awful", "great acting good",
                      "awful bad plot", "good good fun", "bad boring awful"] * 4)
    labels = np.array([1, 0, 1, 0, 1, 0] * 4, np.float32)
    vectorize = L.TextVectorization(max_tokens=20, output_sequence_length=4)
    vectorize.adapt(rt.data.Dataset.from_tensor_slices(texts).batch(8))
    model = keras.Sequential([keras.Input(shape=(), dtype="string"), vectorize,
                              L.Embedding(20, 8, mask_zero=True), L.GlobalAveragePooling1D(),
                              L.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="binary_crossentropy",
                  metrics=["accuracy"])
    data = rt.data.Dataset.from_tensor_slices((texts, labels)).batch(6)
    history = model.fit(data, epochs=8, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert history.history["accuracy"][-1] == 1.0
    path = tmp_path / "text.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert loaded.layers[0].get_vocabulary() == vectorize.get_vocabulary()
    np.testing.assert_allclose(loaded.predict(texts[:5], verbose=0),
                               model.predict(texts[:5], verbose=0), rtol=1e-6)
    with warnings.catch_warnings():  # string batches do not retrace the step each time
        warnings.simplefilter("error")
        model.fit(texts, labels, batch_size=4, epochs=1, verbose=0)
        assert model.predict(texts, batch_size=4, verbose=0).shape == (24, 1)


def test_lookup_configs_round_trip_with_vocabulary():
    layer = L.StringLookup(output_mode="tf_idf")
    layer.adapt([["x", "y"], ["x", "z"]])
    clone = L.StringLookup.from_config(layer.get_config())
    assert clone.get_vocabulary() == layer.get_vocabulary()
    np.testing.assert_allclose(_np(clone([["x", "q"]])), _np(layer([["x", "q"]])))
    disc = L.Discretization(num_bins=2)
    disc.adapt(np.array([1.0, 2.0, 3.0, 4.0]))
    assert L.Discretization.from_config(disc.get_config()).bin_boundaries == disc.bin_boundaries


# -- Resizing and CenterCrop --------------------------------------------------------------------
IMAGES = np.arange(2 * 4 * 6 * 1, dtype=np.float32).reshape(2, 4, 6, 1)


def _half_pixel(n_in, n_out):
    return (np.arange(n_out) + 0.5) * n_in / n_out - 0.5


def test_resizing_bilinear_and_nearest_by_half_pixel_sampling():
    out = _np(L.Resizing(3, 4)(IMAGES))
    assert out.shape == (2, 3, 4, 1) and out.dtype == np.float32
    ys, xs = _half_pixel(4, 3), _half_pixel(6, 4)
    img = IMAGES[0, ..., 0]
    # this image is linear (6 y + x): bilinear sampling inside it gives the plane itself
    np.testing.assert_allclose(out[0, ..., 0], 6 * np.clip(ys, 0, 3)[:, None] +
                               np.clip(xs, 0, 5)[None], rtol=1e-6)
    near = _np(L.Resizing(3, 4, interpolation="nearest")(IMAGES))
    rows = np.minimum(np.floor((np.arange(3) + 0.5) * 4 / 3), 3).astype(int)
    cols = np.minimum(np.floor((np.arange(4) + 0.5) * 6 / 4), 5).astype(int)
    np.testing.assert_array_equal(near[0, ..., 0], img[rows][:, cols])


def test_resizing_area_and_bicubic():
    x = np.random.default_rng(0).random((1, 8, 8, 2)).astype(np.float32)
    area = _np(L.Resizing(4, 4, interpolation="area")(x))
    np.testing.assert_allclose(area, x.reshape(1, 4, 2, 4, 2, 2).mean(axis=(2, 4)), rtol=1e-5)

    def keys(t):  # Keys' cubic kernel, a = -0.5
        t = abs(t)
        return 1.5 * t**3 - 2.5 * t**2 + 1 if t <= 1 else -0.5 * t**3 + 2.5 * t**2 - 4 * t + 2

    up = _np(L.Resizing(16, 16, interpolation="bicubic")(x))
    for o in (5, 6, 9):  # interior outputs: all four taps inside the image
        src = (o + 0.5) / 2 - 0.5
        base = int(np.floor(src))
        w = np.array([keys(src - (base + k)) for k in (-1, 0, 1, 2)])
        taps = x[0, base - 1:base + 3, base - 1:base + 3]
        np.testing.assert_allclose(up[0, o, o], np.einsum("i,ijc,j->c", w, taps, w), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="lanczos3"):
        L.Resizing(2, 2, interpolation="lanczos3")
    with pytest.raises(ValueError, match="interpolation"):
        L.Resizing(2, 2, interpolation="cubic")


def test_resizing_crop_and_pad_to_aspect_ratio():
    cropped = _np(L.Resizing(4, 4, crop_to_aspect_ratio=True)(IMAGES))
    np.testing.assert_array_equal(cropped, IMAGES[:, :, 1:5])  # centered 4x4, same size
    padded = _np(L.Resizing(6, 6, pad_to_aspect_ratio=True, fill_value=-1.0)(IMAGES))
    np.testing.assert_array_equal(padded[:, 1:5], IMAGES)
    np.testing.assert_array_equal(padded[:, [0, 5]], -1.0)
    with pytest.raises(ValueError, match="crop_to_aspect_ratio"):
        L.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)


def test_center_crop_and_single_images():
    np.testing.assert_array_equal(_np(L.CenterCrop(2, 3)(IMAGES)), IMAGES[:, 1:3, 1:4])
    np.testing.assert_array_equal(_np(L.CenterCrop(2, 3)(IMAGES[0])), IMAGES[0, 1:3, 1:4])
    assert _np(L.CenterCrop(6, 3)(IMAGES)).shape == (2, 6, 3, 1)  # resized up, as Keras


# -- augmentation -------------------------------------------------------------------------------
SQUARE = np.arange(2 * 3 * 3 * 1, dtype=np.float32).reshape(2, 3, 3, 1)


def test_augmentation_layers_are_identity_at_inference_and_random_when_training():
    x = np.random.default_rng(1).random((4, 8, 8, 3)).astype(np.float32) * 255
    layers = [L.RandomFlip(seed=1), L.RandomRotation(0.2, seed=1), L.RandomZoom(0.3, seed=1),
              L.RandomTranslation(0.2, 0.2, seed=1), L.RandomContrast(0.5, seed=1),
              L.RandomBrightness(0.3, seed=1)]
    for layer in layers:
        np.testing.assert_array_equal(_np(layer(x, training=False)), x)
        assert not np.array_equal(_np(layer(x)), x), type(layer).__name__  # training by default
    model = keras.Sequential([keras.Input((8, 8, 3))] + layers)
    np.testing.assert_allclose(model.predict(x, verbose=0), x, rtol=1e-6)


def test_random_flip_each_image_flipped_or_not():
    x = np.random.default_rng(2).random((16, 3, 4, 1)).astype(np.float32)
    out = _np(L.RandomFlip("horizontal", seed=0)(x))
    flipped = [np.array_equal(o, a[:, ::-1]) for o, a in zip(out, x)]
    kept = [np.array_equal(o, a) for o, a in zip(out, x)]
    assert all(f or k for f, k in zip(flipped, kept)) and any(flipped) and any(kept)
    with pytest.raises(ValueError, match="mode"):
        L.RandomFlip("diagonal")


def test_random_rotation_translation_zoom_fixed_draws():
    quarter = _np(L.RandomRotation((0.25, 0.25))(SQUARE))
    np.testing.assert_allclose(quarter[..., 0], np.rot90(SQUARE[..., 0], 1, axes=(1, 2)),
                               atol=1e-5)  # counter-clockwise, as Keras
    shifted = _np(L.RandomTranslation((1 / 3, 1 / 3), (0, 0), fill_mode="constant")(SQUARE))
    expected = np.zeros_like(SQUARE)
    expected[:, 1:] = SQUARE[:, :2]
    np.testing.assert_array_equal(shifted, expected)
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    wrapped = _np(L.RandomTranslation((0.5, 0.5), (0, 0), fill_mode="wrap")(x))
    np.testing.assert_array_equal(wrapped, np.roll(x, 2, axis=1))
    zoomed = _np(L.RandomZoom((1.0, 1.0), fill_mode="constant", interpolation="nearest")(x))
    expected = np.zeros_like(x)
    expected[0, 1:3, 1:3] = x[0, 1::2, 1::2]  # zoomed out by 2 about the center
    np.testing.assert_array_equal(zoomed, expected)


def test_random_contrast_and_brightness_formulas():
    x = 100 + np.random.default_rng(3).random((3, 4, 4, 2)).astype(np.float32) * 50
    out = _np(L.RandomContrast((0.5, 0.5), seed=4)(x))  # no clipping within [0, 255] here
    mean = x.mean(axis=(1, 2), keepdims=True)
    factor = (out - mean)[:, :1, :1, :1] / (x - mean)[:, :1, :1, :1]  # one per image
    assert np.all((factor >= 0.5 - 1e-4) & (factor <= 1.5 + 1e-4))
    np.testing.assert_allclose(out, (x - mean) * factor + mean, rtol=1e-4)
    clipped = _np(L.RandomContrast((0.0, 0.0), value_range=(0, 120))(x))
    np.testing.assert_allclose(clipped, np.minimum(x, 120), rtol=1e-6)
    bright = _np(L.RandomBrightness((0.1, 0.1), value_range=(0, 255))(x))
    np.testing.assert_allclose(bright, np.clip(x + 25.5, 0, 255), rtol=1e-6)
    with pytest.raises(ValueError, match="factor"):
        L.RandomBrightness(1.5)


def test_random_crop_training_window_and_inference_resize():
    out = _np(L.RandomCrop(2, 3, seed=5)(IMAGES))
    windows = [IMAGES[:, i:i + 2, j:j + 3] for i in range(3) for j in range(4)]
    assert any(np.array_equal(out, w) for w in windows)
    centered = _np(L.RandomCrop(4, 4)(IMAGES, training=False))
    np.testing.assert_array_equal(centered, IMAGES[:, :, 1:5])


def test_seeded_augmentation_repeats_and_runs_at_every_compiled_call():
    x = np.random.default_rng(6).random((4, 6, 6, 1)).astype(np.float32)
    first = _np(L.RandomRotation(0.3, seed=11)(x))
    again = _np(L.RandomRotation(0.3, seed=11)(x))
    np.testing.assert_array_equal(first, again)
    layer = L.RandomTranslation(0.3, 0.3, seed=2)

    @rt.function
    def augment(images):
        return layer(images, training=True)

    a, b = _np(augment(x)), _np(augment(x))
    assert a.shape == x.shape and not np.array_equal(a, b)
    mapped = rt.data.Dataset.from_tensor_slices(x).batch(2).map(
        lambda im: L.RandomFlip(seed=1)(im))
    assert [_np(m).shape for m in mapped] == [(2, 6, 6, 1), (2, 6, 6, 1)]


def test_image_layers_in_a_saved_model(tmp_path):
    model = keras.Sequential([keras.Input((4, 6, 1)), L.Resizing(2, 3), L.Rescaling(0.5),
                              L.RandomFlip(seed=1), L.Flatten(), L.Dense(2)])
    path = tmp_path / "img.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert [type(layer).__name__ for layer in loaded.layers][:3] == [
        "Resizing", "Rescaling", "RandomFlip"]
    np.testing.assert_allclose(loaded.predict(IMAGES, verbose=0),
                               model.predict(IMAGES, verbose=0), rtol=1e-6)


@keras.saving.register_keras_serializable(package="PreprocessingTest")
def _lower_only(texts):
    return rt.strings.lower(texts)


def test_text_vectorization_custom_standardize_saves_by_registered_name(tmp_path):
    layer = L.TextVectorization(standardize=_lower_only, vocabulary=["ab!", "c"])
    assert layer.get_config()["standardize"] == {"class_name": "function",
                                                 "config": "PreprocessingTest>_lower_only"}
    model = keras.Sequential([keras.Input(shape=(), dtype="string"), layer])
    model.save(tmp_path / "std.keras")
    loaded = keras.models.load_model(tmp_path / "std.keras")
    assert loaded.layers[0].standardize is _lower_only
    # punctuation kept ("ab!"), case folded, unknown "d" is OOV
    np.testing.assert_array_equal(loaded.predict(np.array(["AB! c d"]), verbose=0), [[2, 3, 1]])
