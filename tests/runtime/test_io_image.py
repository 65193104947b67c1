"""Image codecs (rt.io.decode_* / encode_*) against TensorFlow 2.21: the files under
tests/data/fixtures/images/ were written by TensorFlow (PNG, JPEG) or Pillow (GIF, BMP), and
decoded.npz holds TensorFlow's decoding of each (make_image_fixtures.py)."""

import io
import os
import struct
import sys
import zlib

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "..", "data", "fixtures", "images")
TF = np.load(os.path.join(HERE, "decoded.npz"))
JPEG_TOLERANCE = 5   # TensorFlow's default DCT is libjpeg's fast one; ours is the accurate one


def _file(name: str) -> bytes:
    with open(os.path.join(HERE, name), "rb") as fh:
        return fh.read()


def _png(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize("name", ["rgb", "rgba", "rgb16"])
@pytest.mark.parametrize("channels", [0, 1, 3, 4])
def test_png_decodes_exactly_as_tensorflow(name, channels):
    dtype = rt.uint16 if name == "rgb16" else rt.uint8
    got = rt.io.decode_png(_file(f"{name}.png"), channels=channels, dtype=dtype)
    want = TF[f"{name}_png_c{channels}"]
    assert got.dtype == dtype and got.shape.as_tuple() == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


def test_png_depths_as_tensorflow():
    np.testing.assert_array_equal(rt.io.decode_png(_file("rgb16.png")).numpy(), TF["rgb16_png_u8"])
    np.testing.assert_array_equal(rt.io.decode_png(_file("rgb.png"), dtype=rt.uint16).numpy(),
                                  TF["rgb_png_u16"])
    for name in ("rgb", "rgb16"):
        got = rt.io.decode_image(_file(f"{name}.png"), dtype=rt.float32)
        assert got.dtype == rt.float32
        np.testing.assert_array_equal(got.numpy(), TF[f"{name}_png_f32"])


def test_palette_and_grey_alpha_pngs_as_tensorflow():
    # TensorFlow 2.21 on these Pillow-written files: a palette with a transparent entry gives
    # RGBA; grey+alpha keeps 2 channels, grey (1) drops the alpha, RGB repeats the grey
    pal = Image.fromarray(np.array([[0, 1], [1, 0]], np.uint8), mode="P")
    pal.putpalette([255, 0, 0, 0, 255, 0] + [0] * 762)
    out = io.BytesIO()
    pal.save(out, format="PNG", transparency=0)
    np.testing.assert_array_equal(rt.io.decode_png(out.getvalue()).numpy().reshape(-1, 4),
                                  [[255, 0, 0, 0], [0, 255, 0, 255], [0, 255, 0, 255],
                                   [255, 0, 0, 0]])
    grey_alpha = _png(np.array([[[10, 20], [30, 40]]], np.uint8))
    assert rt.io.decode_png(grey_alpha).shape.as_tuple() == (1, 2, 2)
    np.testing.assert_array_equal(rt.io.decode_png(grey_alpha, channels=1).numpy().ravel(), [10, 30])
    np.testing.assert_array_equal(rt.io.decode_png(grey_alpha, channels=4).numpy().ravel(),
                                  [10, 10, 10, 20, 30, 30, 30, 40])
    # libpng's grey of RGB (TensorFlow 2.21's numbers)
    rgb = _png(np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [13, 77, 201]]], np.uint8))
    np.testing.assert_array_equal(rt.io.decode_png(rgb, channels=1).numpy().ravel(),
                                  [76, 149, 29, 72])


def test_jpeg_within_a_few_levels_of_tensorflow():
    data = _file("rgb.jpg")
    accurate = rt.io.decode_jpeg(data, dct_method="INTEGER_ACCURATE")
    np.testing.assert_array_equal(accurate.numpy(), TF["jpg_accurate"])   # the same libjpeg DCT
    for got, want in ((rt.io.decode_jpeg(data), TF["jpg_c0"]),
                      (rt.io.decode_jpeg(data, channels=1), TF["jpg_c1"]),
                      (rt.io.decode_jpeg(data, ratio=2), TF["jpg_ratio2"]),
                      (rt.io.decode_image(data, channels=3), TF["jpg_c0"])):
        assert got.dtype == rt.uint8 and got.shape.as_tuple() == want.shape
        assert np.abs(got.numpy().astype(int) - want).max() <= JPEG_TOLERANCE
    wide = rt.io.decode_image(data, dtype=rt.uint16).numpy()   # uint8 x 256, as TensorFlow
    np.testing.assert_array_equal(wide, rt.io.decode_jpeg(data).numpy().astype(np.uint16) * 256)
    assert np.abs(wide.astype(int) - TF["jpg_image_u16"]).max() <= JPEG_TOLERANCE * 256


def test_gif_frames_and_bmp_as_tensorflow():
    gif = _file("anim.gif")
    frames = rt.io.decode_gif(gif)
    assert frames.shape.as_tuple() == (2, 5, 6, 3)
    np.testing.assert_array_equal(frames.numpy(), TF["gif"])
    np.testing.assert_array_equal(rt.io.decode_image(gif).numpy(), TF["gif"])
    np.testing.assert_array_equal(rt.io.decode_image(gif, expand_animations=False).numpy(),
                                  TF["gif_first"])
    # transparent pixels: black in the first frame, the frame before in the others
    transparent = rt.io.decode_gif(_file("transparent.gif")).numpy()
    np.testing.assert_array_equal(transparent, TF["gif_transparent"])
    assert (transparent[0] == 0).all(axis=-1).any()
    with pytest.raises(InvalidArgumentError, match="Got 2 frames, but animated gifs"):
        rt.io.decode_png(gif)
    with pytest.raises(InvalidArgumentError, match="channels must be 0 or 3 for GIF"):
        rt.io.decode_image(gif, channels=1)
    bmp = _file("rgb.bmp")
    np.testing.assert_array_equal(rt.io.decode_bmp(bmp).numpy(), TF["bmp_c0"])
    np.testing.assert_array_equal(rt.io.decode_bmp(bmp, channels=4).numpy(), TF["bmp_c4"])
    np.testing.assert_array_equal(rt.image.decode_image(bmp).numpy(), TF["bmp_c0"])


def test_format_from_the_bytes_and_tensorflows_errors():
    png, jpg, bmp = _file("rgb.png"), _file("rgb.jpg"), _file("rgb.bmp")
    np.testing.assert_array_equal(rt.io.decode_jpeg(png).numpy(), TF["rgb_png_c0"])
    assert rt.io.decode_gif(png).shape.as_tuple() == (1, 6, 7, 3)
    with pytest.raises(InvalidArgumentError, match="Trying to decode PNG format using DecodeBmp"):
        rt.io.decode_bmp(png)
    with pytest.raises(InvalidArgumentError, match="BMP format using a wrong op.*DecodePng"):
        rt.io.decode_png(bmp)
    with pytest.raises(InvalidArgumentError, match="Unknown image file format"):
        rt.io.decode_image(b"garbage")
    with pytest.raises(InvalidArgumentError, match="JPEG does not support 4 channels"):
        rt.io.decode_image(jpg, channels=4)
    with pytest.raises(InvalidArgumentError, match="channels"):
        rt.io.decode_png(png, channels=2)
    with pytest.raises(InvalidArgumentError, match="Invalid PNG data"):
        rt.io.decode_png(png[:50])
    with pytest.raises(InvalidArgumentError, match="Invalid JPEG data"):
        rt.io.decode_jpeg(jpg[:200])
    with pytest.raises(InvalidArgumentError, match="`contents` must be scalar"):
        rt.io.decode_png([png])
    with pytest.raises(TypeError, match="dtype"):
        rt.io.decode_png(png, dtype=rt.float32)
    with pytest.raises(NotImplementedError, match="fancy_upscaling"):
        rt.io.decode_jpeg(jpg, fancy_upscaling=False)
    with pytest.raises(TypeError, match="did you mean"):
        rt.io.decode_png(png, chanels=3)


def test_decode_image_other_dtypes_convert_as_tensorflow():
    png = _file("rgb.png")
    # TensorFlow 2.21: decoded at uint16, then convert_image_dtype (int32: x 32768)
    got = rt.io.decode_image(png, dtype=rt.int32)
    assert got.dtype == rt.int32
    np.testing.assert_array_equal(got.numpy(), TF["rgb_png_u16"].astype(np.int64) * 32768)
    # float16: the uint16 value cast first, so 65535 overflows to inf (as TensorFlow 2.21)
    with np.errstate(over="ignore"):
        half = rt.io.decode_image(png, dtype=rt.float16).numpy()
    top = TF["rgb_png_c0"] == 255
    assert top.any() and np.isinf(half[top]).all()
    np.testing.assert_allclose(half[~top], TF["rgb_png_f32"][~top], rtol=1e-3)


def test_staged_shapes_and_dataset_map():
    @rt.function(input_signature=[rt.TensorSpec([], rt.string)])
    def decode(contents):
        return (rt.io.decode_png(contents), rt.io.decode_image(contents, channels=3,
                                                                expand_animations=False),
                rt.io.decode_gif(contents), rt.io.decode_jpeg(contents, channels=1))

    graph = decode.get_concrete_function().graph
    # TensorFlow's static shapes: [None, None, channels or None]; GIFs [None, None, None, 3]
    shapes = [t.shape.as_list() for t in graph.outputs]
    assert shapes == [[None, None, None], [None, None, 3], [None, None, None, 3],
                      [None, None, 1]]
    assert {"DecodePng", "DecodeImage", "DecodeGif", "DecodeJpeg"} <= {
        op.type for op in graph.operations}
    png = _file("rgb.png")
    a, b, c, d = decode(png)
    np.testing.assert_array_equal(a.numpy(), TF["rgb_png_c0"])
    np.testing.assert_array_equal(c.numpy(), TF["rgb_png_c0"][None])
    np.testing.assert_array_equal(d.numpy(), TF["rgb_png_c1"])
    ds = rt.data.Dataset.from_tensor_slices([png, _file("rgb.bmp")]).map(
        lambda s: rt.image.decode_image(s, channels=3, expand_animations=False))
    assert ds.element_spec.shape.as_list() == [None, None, 3]
    for got in ds:
        np.testing.assert_array_equal(got.numpy(), TF["rgb_png_c0"])


def _chunks(data: bytes):
    """(type, body) of each PNG chunk, every CRC checked by hand."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, found = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        found.append((kind, body))
        pos += 12 + length
    return found


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_encode_png_is_read_back_by_independent_readers(channels, dtype):
    rng = np.random.default_rng(channels)
    image = rng.integers(0, np.iinfo(dtype).max, (5, 3, channels), endpoint=True).astype(dtype)
    data = rt.io.encode_png(image, compression=9)
    assert data.dtype == rt.string and data.shape.as_tuple() == ()
    data = data.numpy()
    chunks = _chunks(data)
    assert [k for k, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, color = struct.unpack(">IIBB", chunks[0][1][:10])
    assert (width, height, depth, color) == (3, 5, 8 * dtype().itemsize,
                                             {1: 0, 2: 4, 3: 2, 4: 6}[channels])
    rows = np.frombuffer(zlib.decompress(chunks[1][1]), np.uint8).reshape(5, -1)
    assert (rows[:, 0] == 0).all()    # unfiltered scanlines: the raw samples, big-endian
    np.testing.assert_array_equal(rows[:, 1:].view(">u2" if dtype == np.uint16 else np.uint8)
                                  .reshape(image.shape), image)
    np.testing.assert_array_equal(rt.io.decode_png(data, dtype=rt.as_dtype(dtype)).numpy(), image)
    if dtype == np.uint8 or channels == 1:
        pil = np.asarray(Image.open(io.BytesIO(data)))
        np.testing.assert_array_equal(pil.reshape(image.shape), image)


def test_encode_errors_as_tensorflow():
    with pytest.raises(InvalidArgumentError, match="1, 2, 3, or 4 channels"):
        rt.io.encode_png(np.zeros((2, 2, 5), np.uint8))
    with pytest.raises(InvalidArgumentError, match=r"compression should be in \[-1,9\]"):
        rt.io.encode_png(np.zeros((2, 2, 3), np.uint8), compression=10)
    with pytest.raises(TypeError, match="uint8 or uint16"):
        rt.io.encode_png(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match="3-D"):
        rt.io.encode_png(np.zeros((2, 3), np.uint8))
    with pytest.raises(InvalidArgumentError, match="1 or 3 channels"):
        rt.io.encode_jpeg(np.zeros((2, 2, 4), np.uint8))


def test_encode_jpeg_quality_and_formats():
    y, x = np.mgrid[0:32, 0:40]
    image = np.stack([x * 6, y * 7, (x + y) * 3], axis=-1).astype(np.uint8)
    small, large = (rt.io.encode_jpeg(image, quality=q).numpy() for q in (20, 95))
    assert len(small) < len(large)
    for data, limit in ((small, 12.0), (large, 3.0)):
        decoded = np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(float)
        assert np.abs(decoded - image).mean() < limit
        assert rt.io.is_jpeg(data).numpy() and not rt.io.is_jpeg(_file("rgb.png")).numpy()
    grey = rt.io.encode_jpeg(image[..., :1], format="grayscale", progressive=True).numpy()
    assert Image.open(io.BytesIO(grey)).mode == "L"
    assert Image.open(io.BytesIO(large)).info["dpi"] == (300, 300)
    with pytest.raises(InvalidArgumentError, match="1 or 3 channels"):
        rt.io.encode_jpeg(image, format="grayscale")
    staged = rt.function(lambda im: rt.io.decode_jpeg(rt.io.encode_jpeg(im, quality=95)))
    assert np.abs(staged(image).numpy().astype(float) - image).mean() < 3.0


def test_without_pillow_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r"pip install autograph-rt\[images\]"):
        rt.io.decode_jpeg(_file("rgb.jpg"))
    with pytest.raises(ImportError, match=r"autograph-rt\[images\]"):
        rt.io.encode_jpeg(np.zeros((2, 2, 3), np.uint8))
    # PNGs (8-bit ones read here more slowly), uncompressed BMPs and PNG encoding need none
    np.testing.assert_array_equal(rt.io.decode_png(_file("rgb16.png"), dtype=rt.uint16).numpy(),
                                  TF["rgb16_png_c0"])
    for name in ("rgb", "rgba"):
        for channels in (0, 1):
            np.testing.assert_array_equal(
                rt.io.decode_png(_file(f"{name}.png"), channels=channels).numpy(),
                TF[f"{name}_png_c{channels}"])
    np.testing.assert_array_equal(rt.io.decode_bmp(_file("rgb.bmp")).numpy(), TF["bmp_c0"])
    assert rt.io.encode_png(np.zeros((2, 2, 3), np.uint8)).numpy().startswith(b"\x89PNG")


def test_extract_shape_and_crop_as_tensorflow():
    jpg = _file("rgb.jpg")
    shape = rt.io.extract_jpeg_shape(jpg)
    assert shape.dtype == rt.int32 and shape.numpy().tolist() == [16, 20, 3]
    assert rt.image.extract_jpeg_shape(jpg, output_type=rt.int64).dtype == rt.int64
    crop = rt.io.decode_and_crop_jpeg(jpg, [2, 3, 5, 7], channels=3)
    assert crop.shape.as_tuple() == (5, 7, 3)
    # TensorFlow decodes only the window (its edges upsampled differently): a few levels
    assert np.abs(crop.numpy().astype(int) - TF["jpg_c0"][2:7, 3:10]).max() <= 2 * JPEG_TOLERANCE
    staged = rt.function(lambda s, w: rt.io.decode_and_crop_jpeg(s, w))
    np.testing.assert_array_equal(staged(jpg, np.array([2, 3, 5, 7], np.int32)).numpy(),
                                  crop.numpy())
    with pytest.raises(InvalidArgumentError):
        rt.io.decode_and_crop_jpeg(jpg, [12, 3, 5, 7])


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def _filtered_png(image: np.ndarray, kinds) -> bytes:
    """PNG bytes whose rows use the PNG filters `kinds` in turn (the specification's forward
    filters, written out here), for a decoder to undo."""
    height, width, channels = image.shape
    rows = image.reshape(height, -1).astype(int)
    lines = []
    for y in range(height):
        kind = kinds[y % len(kinds)]
        prev = rows[y - 1] if y else np.zeros_like(rows[0])
        line = []
        for i, x in enumerate(rows[y]):
            a = rows[y][i - channels] if i >= channels else 0
            c = prev[i - channels] if i >= channels else 0
            line.append((x - [0, a, prev[i], (a + prev[i]) >> 1, _paeth(a, prev[i], c)][kind]) & 255)
        lines.append(bytes([kind] + line))
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + \
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, {1: 0, 3: 2, 4: 6}[channels], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"".join(lines))) + chunk(b"IEND", b""))


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_every_png_filter_is_undone_with_and_without_pillow(channels, monkeypatch):
    image = np.random.default_rng(channels).integers(0, 256, (9, 7, channels)).astype(np.uint8)
    data = _filtered_png(image, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data))).reshape(image.shape),
                                  image)   # the file is right: Pillow reads it back
    np.testing.assert_array_equal(rt.io.decode_png(data).numpy(), image)
    monkeypatch.setitem(sys.modules, "PIL", None)
    np.testing.assert_array_equal(rt.io.decode_png(data).numpy(), image)


def test_32_bit_bmp_keeps_its_alpha_as_tensorflow():
    pixels = bytes(range(1, 17))   # 2 x 2 BGRA, stored bottom-up
    header = b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54) + struct.pack(
        "<IiiHHIIiiII", 40, 2, 2, 1, 32, 0, len(pixels), 0, 0, 0, 0)
    # TensorFlow 2.21's tf.io.decode_bmp of these bytes
    np.testing.assert_array_equal(rt.io.decode_bmp(header + pixels).numpy(),
                                  [[[11, 10, 9, 12], [15, 14, 13, 16]],
                                   [[3, 2, 1, 4], [7, 6, 5, 8]]])
    np.testing.assert_array_equal(rt.io.decode_bmp(header + pixels, channels=3).numpy(),
                                  [[[11, 10, 9], [15, 14, 13]], [[3, 2, 1], [7, 6, 5]]])
    with pytest.raises(InvalidArgumentError, match="Invalid BMP data"):
        rt.io.decode_bmp(header + pixels[:10])
