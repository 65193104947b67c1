"""Image codecs (`rt.io.decode_png` ... `rt.io.encode_jpeg`, also under `rt.image`): encoded
images are scalar string tensors, decoded images [height, width, channels] (GIF animations
[frames, height, width, 3]).

Each codec is one op (`DecodePng`, `DecodeJpeg`, `DecodeGif`, `DecodeBmp`, `DecodeImage`,
`EncodePng`, `EncodeJpeg`) with a NumPy kernel: it runs eagerly, inside `rt.function` and in
`Dataset.map` on the NumPy tier; the compiled tiers hold no strings and refuse it by name.

As in TensorFlow, a decoder reads the format from the bytes (`decode_png` of JPEG bytes decodes
them; `decode_bmp` only reads BMP, and the other single-format decoders refuse BMP), channels are
converted as libpng / libjpeg do (grey from RGB with libpng's 0.299/0.587/0.114 fixed-point
weights; JPEG's grey is its luma plane), 16-bit PNGs keep their depth with `dtype=uint16`.
PNG is read and written exactly; JPEG and GIF (and interlaced or 1/2/4-bit PNGs, compressed
BMPs) are read through Pillow (an optional extra: `pip install autograph-rt[images]`); other
PNGs (8-bit ones faster with Pillow), uncompressed BMPs and PNG encoding need no Pillow.
"""

from __future__ import annotations

import io as _io
import struct
import zlib

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import BOOL, DTYPE, INT, STR, is_int_in, kind, one_of
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math
from .array_composed import slice as _slice
from .core import apply, convert_to_tensor
from .image import convert_image_dtype
from .strings import substr

_PIP = "pip install autograph-rt[images] (or pip install Pillow)"
_NAMES = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF", "bmp": "BMP", "webp": "WebP"}
_UNKNOWN = "Unknown image file format. One of JPEG, PNG, GIF, BMP, WebP required."
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# libpng's rgb_to_gray weights for (0.299, 0.587): red and green rounded down to 1/32768,
# blue the rest, so that grey pixels stay unchanged
_GRAY_WEIGHTS = np.array([9797, 19234, 3737], np.int64)


def pillow(what: str = "Decoding and encoding JPEG and GIF images (and interlaced PNGs, "
                       "compressed BMPs)"):
    """PIL.Image, or an ImportError saying that `what` needs it and how to install it."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"{what} needs Pillow: {_PIP}.") from None
    return Image


def _bytes(value) -> bytes:
    if isinstance(value, np.ndarray):
        value = value.item()
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def sniff(data: bytes) -> str | None:
    """The image format of `data` from its first bytes ("png", "jpeg", ...), None if unknown."""
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith(_PNG_SIGNATURE):
        return "png"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if data.startswith(b"BM"):
        return "bmp"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


# -- PNG without Pillow (16-bit images, whose colours Pillow keeps to 8 bits; any
# non-interlaced 8-bit PNG when Pillow is missing) ----------------------------------------------

def _png_chunks(data: bytes):
    pos = len(_PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length:
            raise InvalidArgumentError(f"Invalid PNG data, size {len(data)}")
        yield kind, body
        pos += 12 + length


def _png_header(data: bytes) -> tuple[int, int, int, int, int]:
    """(width, height, bit depth, colour type, interlace) of PNG bytes."""
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise InvalidArgumentError(f"Invalid PNG data, size {len(data)}")
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    return width, height, depth, color, interlace


def _predict(kind: int, left: int, up: int, up_left: int) -> int:
    """The Average (3) or Paeth (4) filter's predictor of a byte."""
    if kind == 3:
        return (left + up) >> 1
    p = left + up - up_left
    pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
    return left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)


def _unfilter_row(kind: int, line: np.ndarray, prev: np.ndarray, bpp: int) -> np.ndarray:
    """One scanline (uint8 bytes) with PNG filter `kind` undone, given the previous one."""
    if kind == 0:
        return line
    if kind == 2:
        return line + prev  # uint8 arithmetic wraps, as the filter's does
    if kind == 1:
        return np.cumsum(line.reshape(-1, bpp), axis=0, dtype=np.uint8).reshape(-1)
    out, up = bytearray(line.tobytes()), prev.tobytes()
    for i in range(len(out)):  # each byte depends on the one before: a plain loop
        left = out[i - bpp] if i >= bpp else 0
        up_left = up[i - bpp] if i >= bpp else 0
        out[i] = (out[i] + _predict(kind, left, up[i], up_left)) & 255
    return np.frombuffer(bytes(out), np.uint8)


_PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _palette(chunks: dict, indices: np.ndarray) -> np.ndarray:
    """RGB (or RGBA, with a tRNS chunk) of palette indices [h, w, 1]."""
    colours = np.frombuffer(chunks.get(b"PLTE", b""), np.uint8).reshape(-1, 3)
    table = np.zeros((256, 4), np.uint8)
    table[:, 3] = 255
    table[:len(colours), :3] = colours
    alpha = np.frombuffer(chunks.get(b"tRNS", b""), np.uint8)
    table[:len(alpha), 3] = alpha
    return table[indices[..., 0], :4 if len(alpha) else 3]


def decode_png_here(data: bytes) -> np.ndarray | None:
    """A non-interlaced 8- or 16-bit PNG as [h, w, c] (uint8 / uint16; a palette as RGB or
    RGBA), or None for what only Pillow reads (interlaced, 1/2/4-bit)."""
    width, height, depth, color, interlace = _png_header(data)
    if interlace or depth not in (8, 16) or color not in _PNG_CHANNELS:
        return None
    channels = _PNG_CHANNELS[color]
    bpp = channels * depth // 8
    stride = width * bpp
    chunks: dict = {}
    for name, body in _png_chunks(data):
        chunks[name] = chunks.get(name, b"") + body
    try:
        raw = zlib.decompress(chunks.get(b"IDAT", b""))
    except zlib.error:
        raise InvalidArgumentError(f"Invalid PNG data, size {len(data)}") from None
    if len(raw) < height * (stride + 1):
        raise InvalidArgumentError(f"Invalid PNG data, size {len(data)}")
    rows = np.frombuffer(raw, np.uint8, height * (stride + 1)).reshape(height, stride + 1)
    out = np.empty((height, stride), np.uint8)
    prev = np.zeros(stride, np.uint8)
    for y in range(height):
        if rows[y, 0] > 4:
            raise InvalidArgumentError(f"Invalid PNG data: unknown filter {rows[y, 0]}")
        prev = out[y] = _unfilter_row(int(rows[y, 0]), rows[y, 1:], prev, bpp)
    if depth == 16:
        return out.view(">u2").astype(np.uint16).reshape(height, width, channels)
    pixels = out.reshape(height, width, channels)
    return _palette(chunks, pixels) if color == 3 else pixels


def encode_png_bytes(image: np.ndarray, compression: int = -1) -> bytes:
    """PNG bytes of a uint8 or uint16 [h, w, c] array (c in 1..4), rows unfiltered."""
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    rows = np.ascontiguousarray(image.astype(">u2") if depth == 16 else image)
    rows = rows.reshape(height, -1).view(np.uint8)
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1).tobytes()
    color = {1: 0, 2: 4, 3: 2, 4: 6}[channels]

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + \
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    return (_PNG_SIGNATURE + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, compression)) + chunk(b"IEND", b""))


# -- decoding to each format's own channels and depth ------------------------------------------

def _open(data: bytes, fmt: str):
    opener = pillow()
    try:
        image = opener.open(_io.BytesIO(data))
        image.load()
    except Exception as exc:  # Pillow raises OSError, SyntaxError, ValueError, ...
        raise InvalidArgumentError(f"Invalid {_NAMES[fmt]} data, size {len(data)}: {exc}") from None
    return image


def _pillow_array(image) -> np.ndarray:
    """A Pillow image as [h, w, c] uint8 (or uint16 for 16-bit grey)."""
    mode = image.mode
    if mode in ("P", "PA"):
        image = image.convert("RGBA" if "transparency" in image.info or mode == "PA" else "RGB")
    elif mode == "1":
        image = image.convert("L")
    elif mode == "CMYK" or mode == "YCbCr":
        image = image.convert("RGB")
    array = np.asarray(image)
    if mode.startswith("I"):
        array = array.astype(np.uint16)
    return array[..., None] if array.ndim == 2 else array


def _png_native(data: bytes) -> np.ndarray:
    """16-bit PNGs are read here; 8-bit ones by Pillow (faster), or here without it."""
    if _png_header(data)[2] != 16:
        try:
            return _pillow_array(_open(data, "png"))
        except ImportError:
            pass
    found = decode_png_here(data)
    return _pillow_array(_open(data, "png")) if found is None else found


def _jpeg_native(data: bytes, channels: int, ratio: int) -> np.ndarray:
    opener = pillow()
    try:
        image = opener.open(_io.BytesIO(data))
        width, height = image.size
        if ratio > 1 or (channels == 1 and image.mode != "L"):
            size = (max(1, width // ratio), max(1, height // ratio))
            image.draft("L" if channels == 1 else image.mode, size)
        image.load()
    except Exception:  # Pillow raises OSError, SyntaxError, ValueError, ...
        raise InvalidArgumentError("jpeg::Uncompress failed. Invalid JPEG data or crop "
                                   "window.") from None
    return _pillow_array(image)


def _bmp_native(data: bytes) -> np.ndarray:
    """An uncompressed 8-, 24- or 32-bit BMP as TensorFlow reads it (8-bit: the index bytes,
    one channel; 32-bit: RGBA from BGRA), others through Pillow."""
    if len(data) < 34:
        raise InvalidArgumentError(f"Invalid BMP data, size {len(data)}")
    offset, header = struct.unpack_from("<II", data, 10)
    width, height, _, bits = struct.unpack_from("<iiHH", data, 18)
    compression = struct.unpack_from("<I", data, 30)[0] if header >= 40 else 0
    if bits not in (8, 24, 32) or compression not in (0, 3) or width <= 0 or height == 0:
        image = _open(data, "bmp")
        return np.asarray(image)[..., None] if image.mode in ("P", "L") else _pillow_array(image)
    channels, rows = bits // 8, abs(height)
    stride = (width * channels + 3) // 4 * 4
    if len(data) < offset + stride * rows:
        raise InvalidArgumentError(f"Invalid BMP data, size {len(data)}: {rows} rows of "
                                   f"{stride} bytes do not fit")
    pixels = np.frombuffer(data, np.uint8, stride * rows, offset).reshape(rows, stride)
    pixels = pixels[:, :width * channels].reshape(rows, width, channels)
    if height > 0:  # stored bottom-up
        pixels = pixels[::-1]
    if channels > 1:
        pixels = pixels[..., [2, 1, 0, 3][:channels]]
    return np.ascontiguousarray(pixels)


def _first_gif_frame(image) -> np.ndarray:
    """The first frame as TensorFlow shows it: black outside the frame's box and where its
    pixels are transparent (Pillow shows the background colour there). Each later frame is
    drawn over the one before, transparent pixels keeping it."""
    box = image.tile[0][1] if image.tile else (0, 0) + image.size
    rgb = np.array(image.convert("RGB"))
    hidden = np.ones(rgb.shape[:2], bool)
    hidden[box[1]:box[3], box[0]:box[2]] = False
    if image.mode == "P" and "transparency" in image.info:
        hidden |= np.asarray(image) == image.info["transparency"]
    rgb[hidden] = 0
    return rgb


def _gif_frames(data: bytes) -> list[np.ndarray]:
    opener = pillow()
    try:
        image = opener.open(_io.BytesIO(data))
        frames = [_first_gif_frame(image)]
        for index in range(1, getattr(image, "n_frames", 1)):
            image.seek(index)  # Pillow's composite; where it is transparent, the frame before
            rgba = np.asarray(image.convert("RGBA"))
            frames.append(np.where(rgba[..., 3:] > 0, rgba[..., :3], frames[-1]))
    except Exception as exc:  # Pillow raises OSError, SyntaxError, ValueError, ...
        raise InvalidArgumentError(f"Invalid GIF data, size {len(data)}: {exc}") from None
    return frames


def _gray(rgb: np.ndarray) -> np.ndarray:
    """libpng's grey of RGB: truncated for 8-bit, rounded for 16-bit samples."""
    total = rgb[..., :3].astype(np.int64) @ _GRAY_WEIGHTS
    if rgb.dtype == np.uint16:
        total = total + 16384
    return (total >> 15).astype(rgb.dtype)[..., None]


def _with_channels(image: np.ndarray, channels: int) -> np.ndarray:
    """`image` [.., c] with `channels` channels (0: as it is), converted as libpng does."""
    have = image.shape[-1]
    if channels in (0, have):
        return image
    top = np.iinfo(image.dtype).max
    gray = image[..., :1] if have <= 2 else None
    alpha = image[..., -1:] if have in (2, 4) else np.full(image.shape[:-1] + (1,), top,
                                                          image.dtype)
    if channels == 1:
        return gray if gray is not None else _gray(image)
    rgb = np.repeat(gray, 3, axis=-1) if gray is not None else image[..., :3]
    return rgb if channels == 3 else np.concatenate([rgb, alpha], axis=-1)


def _depth(image: np.ndarray, dtype: _dtypes.DType, fmt: str) -> np.ndarray:
    """`image` in `dtype` (uint8, uint16 or float32) as TensorFlow's decoders give it."""
    wide = image.dtype == np.uint16
    if dtype is _dtypes.uint8:
        return (image >> 8).astype(np.uint8) if wide else image
    if dtype is _dtypes.uint16:
        if wide:
            return image
        return image.astype(np.uint16) * np.uint16(257 if fmt == "png" else 256)
    if fmt == "png" and not wide:  # libpng widens to 16 bits first; then x * (1 / max)
        image, wide = image.astype(np.uint16) * np.uint16(257), True
    scale = np.float32(1.0 / (65535.0 if wide else 255.0))
    return image.astype(np.float32) * scale


def _check_channels(fmt: str, channels: int) -> None:
    allowed = {"gif": (0, 3), "bmp": (0, 3, 4), "jpeg": (0, 1, 3)}.get(fmt, (0, 1, 3, 4))
    if channels in allowed:
        return
    if fmt == "gif":
        raise InvalidArgumentError(f"channels must be 0 or 3 for GIF, got {channels}")
    if fmt == "bmp":
        raise InvalidArgumentError(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
    if fmt == "jpeg" and channels == 4:
        raise InvalidArgumentError("JPEG does not support 4 channels")
    raise InvalidArgumentError(f"`channels` must be 0, 1, 3 or 4 but got {channels}")


def _check_op(op: str, fmt: str | None) -> None:
    if fmt is None:
        raise InvalidArgumentError(_UNKNOWN)
    if op == "DecodeBmp" and fmt != "bmp":
        raise InvalidArgumentError(f"Trying to decode {_NAMES[fmt]} format using DecodeBmp op. "
                                   f"Use `decode_{fmt}` or `decode_image` instead.")
    if fmt == "bmp" and op in ("DecodePng", "DecodeJpeg", "DecodeGif"):
        raise InvalidArgumentError("Trying to decode BMP format using a wrong op. Use "
                                   f"`decode_bmp` or `decode_image` instead. Op used: {op}")


def decode(contents, op: str, channels: int = 0, dtype=_dtypes.uint8, animated: bool = False,
           ratio: int = 1) -> np.ndarray:
    """The image in the bytes `contents`, as the op `op` gives it: [h, w, c], or
    [frames, h, w, c] when `animated` (GIFs; any other image is one frame)."""
    data = _bytes(contents)
    fmt = sniff(data)
    _check_op(op, fmt)
    _check_channels(fmt, channels)
    if fmt == "gif":
        frames = _gif_frames(data)
        if not animated and len(frames) > 1 and op != "DecodeImage":
            raise InvalidArgumentError(f"Got {len(frames)} frames, but animated gifs can only be "
                                       "decoded by tf.io.decode_gif or tf.io.decode_image")
        array = np.stack(frames) if animated else frames[0]
    elif fmt == "png":
        array = _png_native(data)
    elif fmt == "jpeg":
        array = _jpeg_native(data, channels, ratio)
    elif fmt == "bmp":
        array = _bmp_native(data)
    else:
        array = _pillow_array(_open(data, fmt))
    if animated and array.ndim == 3:
        array = array[None]
    return _depth(_with_channels(array, channels), dtype, fmt)


# -- the ops ------------------------------------------------------------------------------------

def _contents(x: Tensor) -> None:
    if x.dtype is not _dtypes.string:
        raise TypeError(f"`contents` must be a string tensor (encoded image bytes), got "
                        f"{x.dtype.name}.")
    if x.shape.rank not in (0, None):
        raise InvalidArgumentError(f"`contents` must be scalar but got shape {x.shape}: decode "
                                   "one image at a time (Dataset.map or rt.map_fn for many).")


def _image_shape(channels: int) -> TensorShape:
    return TensorShape([None, None, channels or None])


def _infer_png(x, channels, dtype):
    _contents(x)
    return _image_shape(channels), dtype


def _infer_jpeg(x, channels, ratio, dct_method):
    _contents(x)
    return _image_shape(channels), _dtypes.uint8


def _infer_bmp(x, channels):
    _contents(x)
    return _image_shape(channels), _dtypes.uint8


def _infer_gif(x):
    _contents(x)
    return TensorShape([None, None, None, 3]), _dtypes.uint8


def _infer_image(x, channels, dtype, expand_animations):
    _contents(x)
    return (TensorShape(None) if expand_animations else _image_shape(channels)), dtype


@kind("image channels")
def _CHANNELS(v, ctx):  # which counts a format takes: checked by the kernels, as TensorFlow
    return None if is_int_in(v, 0, 5) else "an int in [0, 4]"


@kind("JPEG ratio")
def _RATIO(v, ctx):
    return None if type(v) is int and v in (1, 2, 4, 8) else "1, 2, 4 or 8"


@kind("PNG compression")
def _COMPRESSION(v, ctx):
    return None if is_int_in(v, -1, 10) else "an int in [-1, 9]"


_DCT = one_of("", "INTEGER_FAST", "INTEGER_ACCURATE")

DECODE_PNG = define("DecodePng", _infer_png,
                    lambda x, channels, dtype: decode(x, "DecodePng", channels, dtype),
                    differentiable=False, strings=True,
                    attrs={"channels": _CHANNELS, "dtype": DTYPE})
DECODE_JPEG = define("DecodeJpeg", _infer_jpeg,
                     lambda x, channels, ratio, dct_method: decode(x, "DecodeJpeg", channels,
                                                                   ratio=ratio),
                     differentiable=False, strings=True,
                     attrs={"channels": _CHANNELS, "ratio": _RATIO, "dct_method": _DCT})
DECODE_BMP = define("DecodeBmp", _infer_bmp,
                    lambda x, channels: decode(x, "DecodeBmp", channels),
                    differentiable=False, strings=True, attrs={"channels": _CHANNELS})
DECODE_GIF = define("DecodeGif", _infer_gif, lambda x: decode(x, "DecodeGif", 3, animated=True),
                    differentiable=False, strings=True)
DECODE_IMAGE = define("DecodeImage", _infer_image,
                      lambda x, channels, dtype, expand_animations: decode(
                          x, "DecodeImage", channels, dtype,
                          animated=expand_animations and sniff(_bytes(x)) == "gif"),
                      differentiable=False, strings=True,
                      attrs={"channels": _CHANNELS, "dtype": DTYPE, "expand_animations": BOOL})


def _string_scalar(contents) -> Tensor:
    return contents if isinstance(contents, Tensor) else \
        convert_to_tensor(contents, dtype=_dtypes.string)


def _channels(channels, allowed=(0, 1, 3, 4)) -> int:
    if isinstance(channels, bool) or not isinstance(channels, (int, np.integer)):
        raise TypeError(f"`channels` must be an int, got {channels!r}.")
    if int(channels) not in allowed:
        raise InvalidArgumentError(f"`channels` must be one of {', '.join(map(str, allowed))}, got "
                         f"{channels}.")
    return int(channels)


@export("io.decode_png", "image.decode_png")
def decode_png(contents, channels: int = 0, dtype=_dtypes.uint8, name=None) -> Tensor:
    """The PNG image in the scalar string `contents`: [height, width, channels] of `dtype`
    (uint8, or uint16 for the full depth of 16-bit PNGs). `channels` 0 keeps the file's; 1
    grey, 3 RGB, 4 RGBA. Other formats (but BMP) are decoded too, as TensorFlow does."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in (_dtypes.uint8, _dtypes.uint16):
        raise TypeError(f"decode_png: `dtype` must be uint8 or uint16, got {dtype.name}.")
    return apply(DECODE_PNG, [_string_scalar(contents)],
                 {"channels": _channels(channels), "dtype": dtype}, name=name)


@export("io.decode_jpeg", "image.decode_jpeg")
def decode_jpeg(contents, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                dct_method: str = "", name=None) -> Tensor:
    """The JPEG image in the scalar string `contents`: uint8 [height, width, channels];
    `channels` 0 keeps the file's, 1 its luma, 3 RGB. `ratio` (1, 2, 4, 8) downscales while
    decoding. `dct_method` is a hint (libjpeg's accurate integer DCT is always used)."""
    if int(ratio) not in (1, 2, 4, 8):
        raise ValueError(f"`ratio` must be 1, 2, 4 or 8, got {ratio}.")
    if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise ValueError(f"`dct_method` must be '', 'INTEGER_FAST' or 'INTEGER_ACCURATE', got "
                         f"{dct_method!r}.")
    for what, value, default in (("fancy_upscaling", fancy_upscaling, True),
                                 ("try_recover_truncated", try_recover_truncated, False),
                                 ("acceptable_fraction", acceptable_fraction, 1)):
        if value != default:
            raise NotImplementedError(f"decode_jpeg({what}={value!r}) is not implemented here "
                                      f"(Pillow's decoder); leave it at {default!r}.")
    return apply(DECODE_JPEG, [_string_scalar(contents)],
                 {"channels": _channels(channels, (0, 1, 3)), "ratio": int(ratio),
                  "dct_method": dct_method}, name=name)


@export("io.decode_bmp", "image.decode_bmp")
def decode_bmp(contents, channels: int = 0, name=None) -> Tensor:
    """The BMP image in the scalar string `contents`: uint8 [height, width, channels];
    `channels` 0 keeps the file's, 3 RGB, 4 RGBA."""
    return apply(DECODE_BMP, [_string_scalar(contents)],
                 {"channels": _channels(channels, (0, 3, 4))}, name=name)


@export("io.decode_gif", "image.decode_gif")
def decode_gif(contents, name=None) -> Tensor:
    """Every frame of the GIF in the scalar string `contents`: uint8
    [frames, height, width, 3] (each frame as shown, composed over the ones before)."""
    return apply(DECODE_GIF, [_string_scalar(contents)], name=name)


@export("io.decode_image", "image.decode_image")
def decode_image(contents, channels=None, dtype=_dtypes.uint8, name=None,
                 expand_animations: bool = True) -> Tensor:
    """The BMP, GIF, JPEG, PNG (or WebP) image in the scalar string `contents`, found from its
    bytes: [height, width, channels], or [frames, height, width, 3] for a GIF when
    `expand_animations` (its first frame otherwise). `dtype` other than uint8 rescales as
    `convert_image_dtype` (floats in [0, 1])."""
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise TypeError(f"decode_image: `dtype` must be an integer or floating type, got "
                        f"{dtype.name}.")
    channels = 0 if channels is None else _channels(channels)
    direct = dtype in (_dtypes.uint8, _dtypes.uint16, _dtypes.float32)
    image = apply(DECODE_IMAGE, [_string_scalar(contents)],
                  {"channels": channels, "dtype": dtype if direct else _dtypes.uint16,
                   "expand_animations": bool(expand_animations)}, name=name)
    return image if direct else convert_image_dtype(image, dtype)


@export("io.decode_and_crop_jpeg", "image.decode_and_crop_jpeg")
def decode_and_crop_jpeg(contents, crop_window, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "",
                         name=None) -> Tensor:
    """The window `crop_window` = [top, left, height, width] of the JPEG image in `contents`
    (`decode_jpeg`'s arguments otherwise): decoded whole, then cut."""
    image = decode_jpeg(contents, channels=channels, ratio=ratio,
                        fancy_upscaling=fancy_upscaling,
                        try_recover_truncated=try_recover_truncated,
                        acceptable_fraction=acceptable_fraction, dct_method=dct_method, name=name)
    window = array_math.cast(convert_to_tensor(crop_window), _dtypes.int32)
    if window.shape.rank not in (1, None) or window.shape.as_tuple()[:1] not in ((4,), (None,)):
        raise InvalidArgumentError(f"`crop_window` must be [top, left, height, width], got "
                                   f"shape {window.shape}.")
    top, left, height, width = array_math.unstack(window, num=4)
    return _slice(image, array_math.stack([top, left, 0]), array_math.stack([height, width, -1]))


@export("io.extract_jpeg_shape", "image.extract_jpeg_shape")
def extract_jpeg_shape(contents, output_type=_dtypes.int32, name=None) -> Tensor:
    """[height, width, channels] of the JPEG image in `contents`, as `output_type` (int32 or
    int64)."""
    output_type = _dtypes.as_dtype(output_type)
    if output_type not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"extract_jpeg_shape: `output_type` must be int32 or int64, got "
                        f"{output_type.name}.")
    return array_math.shape(decode_jpeg(contents, name=name), out_type=output_type)


@export("io.is_jpeg", "image.is_jpeg")
def is_jpeg(contents, name=None) -> Tensor:
    """True when the scalar string `contents` starts as a JPEG file does."""
    return array_math.equal(substr(_string_scalar(contents), 0, 3), b"\xff\xd8\xff")


# -- encoders -----------------------------------------------------------------------------------

def _image_in(image, what: str, dtypes) -> Tensor:
    x = convert_to_tensor(image)
    if x.dtype not in dtypes:
        raise TypeError(f"{what}: `image` must be {' or '.join(d.name for d in dtypes)}, got "
                        f"{x.dtype.name}.")
    if x.shape.rank is not None and x.shape.rank != 3:
        raise InvalidArgumentError(f"{what}: `image` must be 3-D [height, width, channels], "
                                   f"got shape {x.shape}.")
    return x


def _encode_png_kernel(image, compression):
    image = np.asarray(image)
    if image.ndim != 3 or not 1 <= image.shape[-1] <= 4:
        raise InvalidArgumentError(f"image must have 1, 2, 3, or 4 channels, got {image.shape[-1]}")
    return np.array(encode_png_bytes(image, compression), dtype=object)


def _infer_encoded(x, **_attrs):
    return TensorShape([]), _dtypes.string


ENCODE_PNG = define("EncodePng", _infer_encoded, _encode_png_kernel, differentiable=False,
                    strings=True, attrs={"compression": _COMPRESSION})


@export("io.encode_png", "image.encode_png")
def encode_png(image, compression: int = -1, name=None) -> Tensor:
    """PNG bytes (a scalar string) of the uint8 or uint16 image [height, width, channels]
    (1 to 4 channels); `compression` -1 (zlib's default) or 0 to 9."""
    if int(compression) not in range(-1, 10):
        raise InvalidArgumentError(f"compression should be in [-1,9], got {compression}")
    x = _image_in(image, "encode_png", (_dtypes.uint8, _dtypes.uint16))
    return apply(ENCODE_PNG, [x], {"compression": int(compression)}, name=name)


def _encode_jpeg_kernel(image, format, quality, progressive, optimize_size, chroma_downsampling,
                        density_unit, x_density, y_density, xmp_metadata):
    image = np.asarray(image)
    want = {"grayscale": 1, "rgb": 3}.get(format, image.shape[-1])
    if image.shape[-1] != want or want not in (1, 3):
        raise InvalidArgumentError(f"image must have 1 or 3 channels, got {list(image.shape)}")
    picture = pillow().fromarray(image[..., 0] if want == 1 else image)
    scale = 2.54 if density_unit == "cm" else 1.0
    options = {"quality": quality, "progressive": progressive, "optimize": optimize_size,
               "subsampling": 2 if chroma_downsampling else 0,
               "dpi": (x_density * scale, y_density * scale)}
    if xmp_metadata:
        options["xmp"] = xmp_metadata.encode("utf-8")
    out = _io.BytesIO()
    picture.save(out, format="JPEG", **options)
    return np.array(out.getvalue(), dtype=object)


ENCODE_JPEG = define("EncodeJpeg", _infer_encoded, _encode_jpeg_kernel, differentiable=False,
                     strings=True,
                     attrs={"format": one_of("", "grayscale", "rgb"), "quality": INT,
                            "progressive": BOOL, "optimize_size": BOOL,
                            "chroma_downsampling": BOOL, "density_unit": one_of("in", "cm"),
                            "x_density": INT, "y_density": INT, "xmp_metadata": STR})


@export("io.encode_jpeg", "image.encode_jpeg")
def encode_jpeg(image, format: str = "", quality: int = 95, progressive: bool = False,
                optimize_size: bool = False, chroma_downsampling: bool = True,
                density_unit: str = "in", x_density: int = 300, y_density: int = 300,
                xmp_metadata: str = "", name=None) -> Tensor:
    """JPEG bytes (a scalar string) of the uint8 image [height, width, 1 or 3] at `quality`
    (0 to 100); `format` "grayscale" or "rgb" requires that many channels."""
    if format not in ("", "grayscale", "rgb"):
        raise ValueError(f"`format` must be '', 'grayscale' or 'rgb', got {format!r}.")
    if not 0 <= int(quality) <= 100:
        raise ValueError(f"`quality` must be in [0, 100], got {quality}.")
    if density_unit not in ("in", "cm"):
        raise ValueError(f"`density_unit` must be 'in' or 'cm', got {density_unit!r}.")
    pillow()
    x = _image_in(image, "encode_jpeg", (_dtypes.uint8,))
    attrs = {"format": format, "quality": int(quality), "progressive": bool(progressive),
             "optimize_size": bool(optimize_size),
             "chroma_downsampling": bool(chroma_downsampling), "density_unit": density_unit,
             "x_density": int(x_density), "y_density": int(y_density),
             "xmp_metadata": str(xmp_metadata)}
    return apply(ENCODE_JPEG, [x], attrs, name=name)
