"""keras.utils.image_dataset_from_directory and the Pillow image helpers against Keras 3 on
TensorFlow 2.21: tests/data/fixtures/images/classes/ is a directory of PNG, JPEG, BMP and GIF
files in two class folders, and from_directory.npz what Keras made of it
(make_image_fixtures.py)."""

import io
import os

import numpy as np
import pytest

import runtime as rt
from runtime import keras

pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "..", "data", "fixtures", "images")
ROOT = os.path.join(HERE, "classes")
KERAS = np.load(os.path.join(HERE, "from_directory.npz"))
JPEG = 1               # a/a2.jpg: Keras's decoding uses libjpeg's fast DCT, ours the accurate one
JPEG_TOLERANCE = 8.0   # levels, after resizing
CASES = {
    "default": dict(image_size=(4, 6)),
    "nearest_categorical": dict(image_size=(3, 5), interpolation="nearest",
                                label_mode="categorical"),
    "crop_bicubic": dict(image_size=(4, 4), crop_to_aspect_ratio=True, interpolation="bicubic"),
    "pad_area": dict(image_size=(6, 3), pad_to_aspect_ratio=True, interpolation="area",
                     labels=None),
    "binary_list": dict(image_size=(2, 2), labels=[0, 1, 1, 0, 1, 0], label_mode="binary"),
}


def _parts(ds):
    items = list(ds.as_numpy_iterator())
    if isinstance(items[0], tuple):
        return [np.stack([x[i] for x in items]) for i in range(len(items[0]))]
    return [np.stack(items)]


def _relative(paths):
    return [os.path.relpath(p, ROOT) for p in paths]


def _assert_images(got, want, jpeg_at=JPEG):
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = np.abs(got.astype(np.float64) - want)
    others = np.delete(diff, jpeg_at, axis=0)
    assert others.max() <= (0 if got.dtype == np.uint8 else 1e-3)
    assert diff[jpeg_at].max() <= JPEG_TOLERANCE


@pytest.mark.parametrize("name", sorted(CASES))
def test_elements_as_keras(name, capsys):
    ds = keras.utils.image_dataset_from_directory(ROOT, shuffle=False, batch_size=None,
                                                  **CASES[name])
    assert capsys.readouterr().out.startswith("Found 6 files")
    parts = _parts(ds)
    _assert_images(parts[0], KERAS[f"{name}_0"])
    if len(parts) > 1:
        assert parts[1].dtype == KERAS[f"{name}_1"].dtype
        np.testing.assert_array_equal(parts[1], KERAS[f"{name}_1"])
    assert _relative(ds.file_paths) == KERAS[f"{name}_paths"].tolist()
    assert (ds.class_names or []) == KERAS[f"{name}_classes"].tolist()
    spec = ds.element_spec[0] if len(parts) > 1 else ds.element_spec
    assert spec.shape.as_list() == list(KERAS[f"{name}_0"].shape[1:])


def test_split_both_picks_keras_files(capsys):
    train, val = keras.utils.image_dataset_from_directory(
        ROOT, image_size=(4, 6), validation_split=0.4, subset="both", seed=7, batch_size=None)
    out = capsys.readouterr().out
    assert out == ("Found 6 files belonging to 2 classes.\nUsing 4 files for training.\n"
                   "Using 2 files for validation.\n")
    assert _relative(train.file_paths) == KERAS["split_train_paths"].tolist()
    assert _relative(val.file_paths) == KERAS["split_val_paths"].tolist()
    images, labels = _parts(val)    # the validation part is not shuffled: Keras's order
    _assert_images(images, KERAS["split_val_0"], jpeg_at=0)
    np.testing.assert_array_equal(labels, KERAS["split_val_1"])
    # the training part is shuffled by this runtime's generator: Keras's files, in some order
    train_labels = sorted(int(y) for _, y in train.as_numpy_iterator())
    assert train_labels == sorted(["a", "b"].index(p.split("/")[0])
                                  for p in KERAS["split_train_paths"])


def test_batches_shuffle_and_fit():
    ds = keras.utils.image_dataset_from_directory(ROOT, image_size=(8, 8), batch_size=4, seed=3,
                                                  verbose=False)
    shapes = [(x.shape.as_tuple(), y.shape.as_tuple()) for x, y in ds]
    assert shapes == [((4, 8, 8, 3), (4,)), ((2, 8, 8, 3), (2,))]
    assert ds.element_spec[0].shape.as_list() == [None, 8, 8, 3]
    first = sorted(int(y) for _, ys in ds for y in ys.numpy())
    assert first == [0, 0, 0, 1, 1, 1]
    model = keras.Sequential([keras.layers.Rescaling(1 / 255), keras.layers.Flatten(),
                              keras.layers.Dense(2)])
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(ds, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2


def test_channels_first_and_grayscale_refusing_bmp_as_tensorflow():
    ds = keras.utils.image_dataset_from_directory(ROOT, image_size=(4, 6), shuffle=False,
                                                  batch_size=None, data_format="channels_first",
                                                  verbose=False)
    images = _parts(ds)[0]
    _assert_images(images, KERAS["default_0"].transpose(0, 3, 1, 2))
    # TensorFlow 2.21 raises when it meets the BMP: `channels` 1 is no BMP channel count
    grey = keras.utils.image_dataset_from_directory(ROOT, image_size=(4, 6), shuffle=False,
                                                    color_mode="grayscale", verbose=False)
    with pytest.raises(rt.errors.InvalidArgumentError, match="must be 0, 3 or 4 for BMP"):
        list(grey)


def test_argument_errors_as_keras(tmp_path):
    load = keras.utils.image_dataset_from_directory
    with pytest.raises(ValueError, match="seed"):
        load(ROOT, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="`label_mode` argument must be one of"):
        load(ROOT, label_mode="sparse")
    with pytest.raises(ValueError, match="`color_mode` must be one of"):
        load(ROOT, color_mode="cmyk")
    with pytest.raises(ValueError, match="exactly 2"):
        load(ROOT, labels=[0, 1, 2, 0, 1, 2], label_mode="binary", verbose=False)
    with pytest.raises(ValueError, match="class_names"):
        load(ROOT, class_names=["a", "c"])
    with pytest.raises(ValueError, match="Only one of"):
        load(ROOT, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="No images found"):
        load(str(tmp_path), verbose=False)
    with pytest.raises(NotImplementedError, match="lanczos3"):
        load(ROOT, interpolation="lanczos3")
    with pytest.raises(TypeError, match="did you mean"):
        load(ROOT, image_sise=(4, 4))


def test_class_names_pick_and_order_the_folders(capsys):
    ds = keras.utils.image_dataset_from_directory(ROOT, class_names=["b", "a"], shuffle=False,
                                                  image_size=(2, 2), batch_size=None)
    assert ds.class_names == ["b", "a"]
    labels = [int(y) for _, y in ds.as_numpy_iterator()]
    assert labels == [0, 0, 0, 1, 1, 1]     # b's files first, labelled 0
    assert capsys.readouterr().out == "Found 6 files belonging to 2 classes.\n"


def test_pillow_helpers_as_keras(tmp_path):
    array = np.arange(4 * 6 * 3, dtype=np.float32).reshape(4, 6, 3)
    image = keras.utils.array_to_img(array)          # scaled onto [0, 255]
    assert image.mode == "RGB" and image.size == (6, 4)
    np.testing.assert_array_equal(np.asarray(image), (array / array.max() * 255).astype(np.uint8))
    back = keras.utils.img_to_array(image)
    assert back.dtype == np.float32 and back.shape == (4, 6, 3)
    assert keras.utils.img_to_array(image, data_format="channels_first").shape == (3, 4, 6)
    path = tmp_path / "x.png"
    keras.utils.save_img(str(path), array, scale=False)
    np.testing.assert_array_equal(np.asarray(Image.open(path)), array.astype(np.uint8))
    loaded = keras.utils.load_img(str(path), color_mode="grayscale", target_size=(2, 3))
    assert loaded.mode == "L" and loaded.size == (3, 2)
    rgba = keras.preprocessing.image.load_img(io.BytesIO(path.read_bytes()), color_mode="rgba")
    assert rgba.mode == "RGBA"
    cropped = keras.utils.load_img(str(path), target_size=(4, 4), keep_aspect_ratio=True)
    want = Image.open(path).convert("RGB").resize((4, 4), Image.Resampling.NEAREST,
                                                  box=(1, 0, 5, 4))
    np.testing.assert_array_equal(np.asarray(cropped), np.asarray(want))
    with pytest.warns(UserWarning, match="RGBA"):
        keras.utils.save_img(str(tmp_path / "y.jpg"), np.zeros((2, 2, 4)))
    with pytest.raises(ValueError, match="color_mode"):
        keras.utils.load_img(str(path), color_mode="cmyk")
    with pytest.raises(ValueError, match="rank 3"):
        keras.utils.array_to_img(np.zeros((2, 2)))


def test_smart_resize_as_keras_crop():
    image = np.arange(5 * 7 * 3, dtype=np.float32).reshape(5, 7, 3)
    got = keras.preprocessing.image.smart_resize(image, (5, 5))
    # Keras: the centered 5x5 window (columns 1..5), then a resize to the same size
    np.testing.assert_allclose(got, image[:, 1:6], atol=1e-4)
    assert keras.preprocessing.image.smart_resize(image[None], (2, 2)).shape == (1, 2, 2, 3)


def test_png_directories_need_no_pillow_but_load_img_names_the_extra(monkeypatch, tmp_path):
    import sys
    os.makedirs(tmp_path / "a")
    with open(tmp_path / "a" / "x.png", "wb") as fh:
        fh.write(rt.io.encode_png(np.full((3, 3, 3), 7, np.uint8)).numpy())
    monkeypatch.setitem(sys.modules, "PIL", None)
    ds = keras.utils.image_dataset_from_directory(str(tmp_path), image_size=(2, 2),
                                                  verbose=False)
    images, labels = next(iter(ds))
    np.testing.assert_array_equal(images.numpy(), np.full((1, 2, 2, 3), 7.0, np.float32))
    with pytest.raises(ImportError, match=r"load_img needs Pillow: pip install autograph-rt\[images\]"):
        keras.utils.load_img(str(tmp_path / "a" / "x.png"))
