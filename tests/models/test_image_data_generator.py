"""keras.preprocessing.image.ImageDataGenerator (Keras 3's deprecated generator, used by the
tf.data guide): batches, labels and transforms checked against Pillow, NumPy and SciPy
computations and the values Keras 3 prints for the same calls."""

import os

import numpy as np
import pytest

from runtime import keras

Image = pytest.importorskip("PIL.Image")
pytest.importorskip("scipy")
ImageDataGenerator = keras.preprocessing.image.ImageDataGenerator


@pytest.fixture
def folders(tmp_path):
    rng = np.random.default_rng(0)
    for name, count in (("cats", 3), ("dogs", 2)):
        os.makedirs(tmp_path / name)
        for i in range(count):
            Image.fromarray(rng.integers(0, 255, (9, 7, 3), dtype=np.uint8)).save(
                tmp_path / name / f"{i}.png")
    return tmp_path


def _pillow(path, size):
    return np.asarray(Image.open(path).convert("RGB").resize(size[::-1], Image.NEAREST),
                      np.float32)


def test_flow_from_directory_batches_like_keras(folders, capsys):
    gen = ImageDataGenerator(rescale=1 / 255.0)
    it = gen.flow_from_directory(str(folders), target_size=(6, 5), batch_size=4, shuffle=False)
    assert capsys.readouterr().out == "Found 5 images belonging to 2 classes.\n"
    # Keras 3 gives these for the same folders
    assert it.class_indices == {"cats": 0, "dogs": 1} and it.classes.tolist() == [0, 0, 0, 1, 1]
    assert it.filenames == [os.path.join(c, f) for c, f in
                            [("cats", "0.png"), ("cats", "1.png"), ("cats", "2.png"),
                             ("dogs", "0.png"), ("dogs", "1.png")]]
    assert (len(it), it.samples, it.num_classes, it.image_shape) == (2, 5, 2, (6, 5, 3))
    x, y = next(it)
    assert x.dtype == np.float32 and x.shape == (4, 6, 5, 3)
    assert y.tolist() == [[1, 0], [1, 0], [1, 0], [0, 1]]
    expected = np.stack([_pillow(p, (6, 5)) for p in it.filepaths[:4]]) * np.float32(1 / 255.0)
    np.testing.assert_allclose(x, expected, rtol=1e-6)
    assert next(it)[1].tolist() == [[0, 1]]          # the last, short batch
    assert next(it)[1].tolist() == y.tolist()        # then the next epoch
    sparse = gen.flow_from_directory(str(folders), target_size=(6, 5), batch_size=4,
                                     shuffle=False, class_mode="sparse", color_mode="grayscale")
    xs, ys = sparse[1]
    assert xs.shape == (1, 6, 5, 1) and ys.dtype == np.float32 and ys.tolist() == [1.0]


def test_apply_transform_matches_numpy_and_scipy():
    rng = np.random.default_rng(1)
    image = rng.normal(size=(6, 6, 2)).astype(np.float32)
    gen = ImageDataGenerator()
    np.testing.assert_allclose(gen.apply_transform(image, {"flip_horizontal": True}),
                               image[:, ::-1])
    np.testing.assert_allclose(gen.apply_transform(image, {"flip_vertical": True}),
                               image[::-1])
    # a quarter turn of a square image about its center is a rot90 of the rows and columns
    turned = gen.apply_transform(image, {"theta": 90})
    np.testing.assert_allclose(turned, np.rot90(image, k=1, axes=(0, 1)), atol=1e-5)
    shifted = ImageDataGenerator(fill_mode="constant", cval=0.0).apply_transform(
        image, {"tx": 2})    # as measured under Keras 3: columns move left by 2, zeros come in
    np.testing.assert_allclose(shifted[:, :4], image[:, 2:], atol=1e-6)
    np.testing.assert_allclose(shifted[:, 4:], 0.0)
    shifted = ImageDataGenerator(fill_mode="constant").apply_transform(image, {"ty": 2})
    np.testing.assert_allclose(shifted[:4], image[2:], atol=1e-6)   # and ty moves the rows
    np.testing.assert_allclose(shifted[4:], 0.0)
    with pytest.raises(ValueError, match="fill_mode"):
        ImageDataGenerator(fill_mode="mirror")


def test_random_transforms_repeat_for_a_seed_and_keep_shapes():
    gen = ImageDataGenerator(rotation_range=20, width_shift_range=0.1, zoom_range=0.2,
                             horizontal_flip=True)
    first = gen.get_random_transform((8, 8, 3), seed=3)
    assert first == gen.get_random_transform((8, 8, 3), seed=3)
    assert -20 <= first["theta"] <= 20 and abs(first["ty"]) <= 0.8
    assert 0.8 <= first["zx"] <= 1.2 and first["tx"] == 0.0
    image = np.random.default_rng(0).normal(size=(8, 8, 3)).astype(np.float32)
    assert gen.random_transform(image, seed=5).shape == (8, 8, 3)


def test_featurewise_statistics_and_flow():
    data = np.random.default_rng(2).normal(size=(20, 4, 4, 3)).astype(np.float32) * 3 + 1
    gen = ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True)
    gen.fit(data)
    np.testing.assert_allclose(gen.mean.ravel(), data.mean(axis=(0, 1, 2)), rtol=1e-5)
    np.testing.assert_allclose(gen.std.ravel(), data.std(axis=(0, 1, 2)), rtol=1e-4)
    flow = gen.flow(data, np.arange(20), batch_size=8, shuffle=False)
    x, y = next(flow)
    assert len(flow) == 3 and y.tolist() == list(range(8))
    np.testing.assert_allclose(x, (data[:8] - gen.mean) / (gen.std + 1e-6), rtol=1e-5)
    split = ImageDataGenerator(validation_split=0.25)
    labels = np.arange(20) % 4
    assert split.flow(data, labels, subset="validation", shuffle=False).n == 5
    with pytest.raises(ValueError, match="different number of classes"):
        split.flow(data, np.arange(20), subset="training")   # Keras refuses sorted labels
    with pytest.raises(TypeError, match="rotaton_range"):
        ImageDataGenerator(rotaton_range=3)
