"""`keras.ops.image`: Keras 3's image ops on channels-last batches ([batch, height, width,
channels], or one image without the batch axis), composed of the runtime's ops.

`affine_transform` and `perspective_transform` sample as TensorFlow's projective transform
does (the fill mode maps a coordinate outside the image, then bilinear or nearest reads with
`fill_value` outside); `map_coordinates` as SciPy's / JAX's (the fill mode maps each integer
neighbour).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..layers.seed_generator import draw_seed
from ..ops import array_math as _am
from ..ops import random_stateless as _stateless
from ..tensor import Tensor
from .ops_nn import _channels_last, conv
from .ops_numpy import _float, _linalg, _math, _rank, _rt, _Space, _t

_image, _nn = _Space("image"), _Space("nn")


def _batched(images, what: str) -> tuple[Tensor, bool]:
    """[batch, h, w, c] images, and whether a batch axis was added."""
    x = _t(images)
    rank = _rank(x, what)
    if rank not in (3, 4):
        raise ValueError(f"keras.ops.image.{what} takes [height, width, channels] or [batch, "
                         f"height, width, channels] images, got rank {rank}.")
    return (_am.expand_dims(x, 0), True) if rank == 3 else (x, False)


def _unbatched(x: Tensor, added: bool) -> Tensor:
    return x[0] if added else x


def rgb_to_grayscale(images, data_format=None):
    """One channel of luminance (0.2989 R + 0.5870 G + 0.1140 B)."""
    _channels_last(data_format, "image.rgb_to_grayscale")
    return _image.rgb_to_grayscale(_float(images))


def rgb_to_hsv(images, data_format=None):
    """RGB values in [0, 1] as hue, saturation, value in [0, 1]."""
    _channels_last(data_format, "image.rgb_to_hsv")
    return _image.rgb_to_hsv(_float(images))


def hsv_to_rgb(images, data_format=None):
    """Hue, saturation, value in [0, 1] as RGB values."""
    _channels_last(data_format, "image.hsv_to_rgb")
    return _image.hsv_to_rgb(_float(images))


def sobel_edges(images, data_format=None):
    """The Sobel gradients of each channel, [..., channels, 2] (dy, dx)."""
    _channels_last(data_format, "image.sobel_edges")
    return _image.sobel_edges(_float(images))


_INTERPOLATIONS = {"bilinear": "bilinear", "nearest": "nearest", "bicubic": "bicubic",
                   "area": "area", "lanczos3": "lanczos3", "lanczos5": "lanczos5",
                   "gaussian": "gaussian", "mitchellcubic": "mitchellcubic"}


def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """`images` resized to `size` (height, width); with `crop_to_aspect_ratio`, the largest
    centred box of the target's aspect ratio is cropped first."""
    _channels_last(data_format, "image.resize")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"keras.ops.image.resize(interpolation={interpolation!r}): expected "
                         f"one of {', '.join(_INTERPOLATIONS)}.")
    if pad_to_aspect_ratio:
        raise ValueError("keras.ops.image.resize(pad_to_aspect_ratio=True) is not offered; "
                         "pad with keras.ops.image.pad_images first.")
    x, added = _batched(_float(images), "resize")
    target_h, target_w = (int(v) for v in size)
    if crop_to_aspect_ratio:
        height, width = x.shape[1], x.shape[2]
        crop_h = min(height, int(width * target_h / target_w))
        crop_w = min(width, int(height * target_w / target_h))
        top, left = int((height - crop_h) / 2), int((width - crop_w) / 2)
        x = x[:, top:top + crop_h, left:left + crop_w, :]
    out = _image.resize(x, [target_h, target_w], method=_INTERPOLATIONS[interpolation],
                        antialias=bool(antialias))
    return _unbatched(out, added)


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """`images` cropped by the given margins, or to `target_height` x `target_width` from
    the top and left margins."""
    _channels_last(data_format, "image.crop_images")
    x, added = _batched(images, "crop_images")
    height, width = x.shape[1], x.shape[2]
    top, left = int(top_cropping or 0), int(left_cropping or 0)
    if target_height is None:
        target_height = height - top - int(bottom_cropping or 0)
    if target_width is None:
        target_width = width - left - int(right_cropping or 0)
    if target_height <= 0 or target_width <= 0 or top + target_height > height or \
            left + target_width > width:
        raise ValueError(f"keras.ops.image.crop_images: the crop ({top}, {left}, "
                         f"{target_height}x{target_width}) does not fit in {height}x{width} "
                         "images.")
    return _unbatched(_image.crop_to_bounding_box(x, top, left, int(target_height),
                                                  int(target_width)), added)


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """`images` padded with zeros by the given margins, or to `target_height` x
    `target_width` with the top and left margins."""
    _channels_last(data_format, "image.pad_images")
    x, added = _batched(images, "pad_images")
    height, width = x.shape[1], x.shape[2]
    top, left = int(top_padding or 0), int(left_padding or 0)
    if target_height is None:
        target_height = height + top + int(bottom_padding or 0)
    if target_width is None:
        target_width = width + left + int(right_padding or 0)
    if target_height < height + top or target_width < width + left:
        raise ValueError(f"keras.ops.image.pad_images: {height}x{width} images with margins "
                         f"({top}, {left}) do not fit in {target_height}x{target_width}.")
    return _unbatched(_image.pad_to_bounding_box(x, top, left, int(target_height),
                                                 int(target_width)), added)


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """Every `size` patch of each image, flattened into the channels: [batch, rows, cols,
    patch_h * patch_w * channels] (patches `strides` apart, `size` by default)."""
    _channels_last(data_format, "image.extract_patches")
    x, added = _batched(images, "extract_patches")
    ph, pw = (int(size),) * 2 if np.ndim(size) == 0 else (int(v) for v in size)
    step = (ph, pw) if strides is None else \
        ((int(strides),) * 2 if np.ndim(strides) == 0 else tuple(int(v) for v in strides))
    rate = (int(dilation_rate),) * 2 if np.ndim(dilation_rate) == 0 else \
        tuple(int(v) for v in dilation_rate)
    channels = int(x.shape[-1])
    # a convolution with one-hot kernels copies each patch element into its own channel
    eye = np.eye(ph * pw * channels, dtype=x.dtype.as_numpy_dtype)
    kernel = eye.reshape(ph, pw, channels, ph * pw * channels)
    out = conv(x, kernel, strides=step, padding=padding, dilation_rate=rate)
    return _unbatched(out, added)


def _triple(value, what: str) -> tuple:
    values = (int(value),) * 3 if np.ndim(value) == 0 else tuple(int(v) for v in value)
    if len(values) != 3:
        raise ValueError(f"keras.ops.image.extract_patches_3d: {what} must be an int or three "
                         f"ints, got {value!r}.")
    return values


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    """Every `size` (depth, height, width) patch of each volume, flattened into the
    channels: [batch, d, h, w, pd * ph * pw * channels] (patches `strides` apart, `size` by
    default; a 4-D volume gives a 4-D result), as Keras 3."""
    _channels_last(data_format, "image.extract_patches_3d")
    x = _t(volumes)
    rank = _rank(x, "extract_patches_3d")
    if rank not in (4, 5):
        raise ValueError(f"keras.ops.image.extract_patches_3d takes [depth, height, width, "
                         f"channels] or [batch, depth, height, width, channels] volumes, got "
                         f"rank {rank}.")
    added = rank == 4
    x = _am.expand_dims(x, 0) if added else x
    patch = _triple(size, "size")
    step = patch if strides is None else _triple(strides, "strides")
    rate = _triple(dilation_rate, "dilation_rate")
    from ..ops import image_crops  # tf.extract_volume_patches's family, loaded on first use

    out = image_crops.patches(x, patch, step, rate, padding, "keras.ops.image.extract_patches_3d")
    return _unbatched(out, added)


def _gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    offsets = np.arange(size, dtype=np.float64) - (size - 1) / 2
    weights = np.exp(-0.5 * (offsets / sigma) ** 2)
    return weights / weights.sum()


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Each channel blurred by a normalised Gaussian kernel of `kernel_size` and `sigma`
    (height, width), zeros outside the image."""
    _channels_last(data_format, "image.gaussian_blur")
    x, added = _batched(_float(images), "gaussian_blur")
    kh, kw = (int(v) for v in (kernel_size if np.ndim(kernel_size) else (kernel_size,) * 2))
    sh, sw = (float(v) for v in (sigma if np.ndim(sigma) else (sigma,) * 2))
    kernel2d = np.outer(_gaussian_kernel(kh, sh), _gaussian_kernel(kw, sw))
    channels = int(x.shape[-1])
    kernel = np.tile(kernel2d[:, :, None, None], (1, 1, channels, 1)).astype(
        x.dtype.as_numpy_dtype)
    out = _nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "SAME")
    return _unbatched(out, added)


# -- sampling ----------------------------------------------------------------------------

_FILL_MODES = ("constant", "nearest", "wrap", "reflect")


def _map_coordinate(c: Tensor, length: int, mode: str) -> Tensor:
    """TensorFlow's projective-transform mapping of a coordinate outside [0, length - 1]."""
    n = float(length)
    if mode == "constant":
        return c
    if length <= 1:
        return _am.zeros_like(c)
    if mode == "nearest":
        return _am.clip_by_value(c, 0.0, n - 1)
    if mode == "wrap":
        period = n - 1
        low = _am.add(c, _am.multiply(n, _am.add(_am.floor(_am.divide(_am.negative(c), period)), 1.0)))
        high = _am.subtract(c, _am.multiply(n, _am.floor(_am.divide(c, period))))
        out = _am.where(_am.less(c, 0.0), low, _am.where(_am.greater(c, n - 1), high, c))
        return _am.clip_by_value(out, 0.0, n - 1)
    # reflect (d c b a | a b c d | d c b a)
    period = 2 * n
    neg = _am.add(c, _am.multiply(period, _am.floor(_am.divide(_am.negative(c), period))))
    neg = _am.where(_am.less(c, -period), neg, c)
    neg = _am.where(_am.less(neg, -n), _am.add(neg, period), _am.subtract(_am.negative(neg), 1.0))
    pos = _am.subtract(c, _am.multiply(period, _am.floor(_am.divide(c, period))))
    pos = _am.where(_am.greater_equal(pos, n), _am.subtract(_am.subtract(period, pos), 1.0), pos)
    out = _am.where(_am.less(c, 0.0), neg, _am.where(_am.greater(c, n - 1), pos, c))
    return _am.clip_by_value(out, 0.0, n - 1)


def _read(x: Tensor, rows: Tensor, cols: Tensor, fill) -> Tensor:
    """x [B, H, W, C] at integer rows / cols [B, h, w] (fill outside)."""
    height, width = int(x.shape[1]), int(x.shape[2])
    inside = _am.logical_and(
        _am.logical_and(_am.greater_equal(rows, 0), _am.less(rows, height)),
        _am.logical_and(_am.greater_equal(cols, 0), _am.less(cols, width)))
    r = _am.clip_by_value(rows, 0, height - 1)
    c = _am.clip_by_value(cols, 0, width - 1)
    batch = _am.add(_am.zeros_like(r), _am.reshape(_rt.range(_am.shape(r)[0]), [-1, 1, 1]))
    values = _rt.gather_nd(x, _rt.stack([batch, r, c], axis=-1))
    return _am.where(_am.expand_dims(inside, -1), values,
                     _am.fill(_am.shape(values), _am.cast(fill, x.dtype)))


def _round_half_away(v: Tensor) -> Tensor:
    return _am.multiply(_am.sign(v), _am.floor(_am.add(_am.abs(v), 0.5)))


def _sample(x: Tensor, ys: Tensor, xs: Tensor, interpolation: str, fill_mode: str,
            fill_value) -> Tensor:
    ys = _map_coordinate(ys, int(x.shape[1]), fill_mode)
    xs = _map_coordinate(xs, int(x.shape[2]), fill_mode)
    if interpolation == "nearest":
        return _read(x, _am.cast(_round_half_away(ys), _dtypes.int32),
                     _am.cast(_round_half_away(xs), _dtypes.int32), fill_value)
    y0, x0 = _am.floor(ys), _am.floor(xs)
    wy = _am.expand_dims(_am.subtract(ys, y0), -1)
    wx = _am.expand_dims(_am.subtract(xs, x0), -1)
    r0, c0 = _am.cast(y0, _dtypes.int32), _am.cast(x0, _dtypes.int32)
    r1, c1 = _am.add(r0, 1), _am.add(c0, 1)
    top = _am.add(_am.multiply(_am.subtract(1.0, wx), _read(x, r0, c0, fill_value)),
                  _am.multiply(wx, _read(x, r0, c1, fill_value)))
    bottom = _am.add(_am.multiply(_am.subtract(1.0, wx), _read(x, r1, c0, fill_value)),
                     _am.multiply(wx, _read(x, r1, c1, fill_value)))
    return _am.add(_am.multiply(_am.subtract(1.0, wy), top), _am.multiply(wy, bottom))


def _projective(x: Tensor, transform: Tensor, interpolation: str, fill_mode: str, fill_value,
                what: str) -> Tensor:
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"keras.ops.image.{what}(interpolation={interpolation!r}): expected "
                         "'nearest' or 'bilinear'.")
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"keras.ops.image.{what}(fill_mode={fill_mode!r}): expected one of "
                         f"{', '.join(_FILL_MODES)}.")
    height, width = int(x.shape[1]), int(x.shape[2])
    t = _am.cast(transform, x.dtype)
    if t.shape.rank == 1:
        t = _am.expand_dims(t, 0)
    gy, gx = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    gx = gx.astype(x.dtype.as_numpy_dtype)[None]
    gy = gy.astype(x.dtype.as_numpy_dtype)[None]

    def coef(i):
        return _am.reshape(t[:, i], [-1, 1, 1])
    k = _am.add(_am.add(_am.multiply(coef(6), gx), _am.multiply(coef(7), gy)), 1.0)
    xs = _am.divide(_am.add(_am.add(_am.multiply(coef(0), gx), _am.multiply(coef(1), gy)),
                            coef(2)), k)
    ys = _am.divide(_am.add(_am.add(_am.multiply(coef(3), gx), _am.multiply(coef(4), gy)),
                            coef(5)), k)
    batch = _am.shape(x)[:1]
    xs = _am.add(xs, _am.zeros(_rt.concat([batch, [height, width]], 0), x.dtype))
    ys = _am.add(ys, _am.zeros(_rt.concat([batch, [height, width]], 0), x.dtype))
    return _sample(x, ys, xs, interpolation, fill_mode, fill_value)


def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    """Each image transformed by its projective `transform` [a0, a1, a2, b0, b1, b2, c0, c1]
    (or one for all): output (x, y) reads input ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) /
    k), k = c0 x + c1 y + 1."""
    _channels_last(data_format, "image.affine_transform")
    x, added = _batched(_float(images), "affine_transform")
    out = _projective(x, _t(transform), interpolation, fill_mode, fill_value,
                      "affine_transform")
    return _unbatched(out, added)


def _homography(start: Tensor, end: Tensor) -> Tensor:
    """The 8 coefficients mapping each `end` point to its `start` point ([B, 4, 2] each)."""
    rows = []
    for i in range(4):
        xe, ye = end[:, i, 0], end[:, i, 1]
        xs, ys = start[:, i, 0], start[:, i, 1]
        zero, one = _am.zeros_like(xe), _am.ones_like(xe)
        rows.append(_rt.stack([xe, ye, one, zero, zero, zero, _am.negative(_am.multiply(xe, xs)),
                               _am.negative(_am.multiply(ye, xs))], axis=-1))
        rows.append(_rt.stack([zero, zero, zero, xe, ye, one, _am.negative(_am.multiply(xe, ys)),
                               _am.negative(_am.multiply(ye, ys))], axis=-1))
    a = _rt.stack(rows, axis=1)                                   # [B, 8, 8]
    b = _am.reshape(start, [-1, 8, 1])
    return _am.reshape(_linalg.solve(a, b), [-1, 8])


def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    """Each image warped so that its four `start_points` (x, y) move to `end_points`."""
    _channels_last(data_format, "image.perspective_transform")
    x, added = _batched(_float(images), "perspective_transform")
    start = _am.cast(_t(start_points), _dtypes.float64)
    end = _am.cast(_t(end_points), _dtypes.float64)
    if start.shape.rank == 2:
        start, end = _am.expand_dims(start, 0), _am.expand_dims(end, 0)
    transform = _am.cast(_homography(start, end), x.dtype)
    out = _projective(x, transform, interpolation, "constant", fill_value,
                      "perspective_transform")
    return _unbatched(out, added)


_MAP_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _map_index(i: Tensor, n: int, mode: str) -> Tensor:
    if mode in ("constant", "nearest"):
        return _am.clip_by_value(i, 0, n - 1) if mode == "nearest" else i
    if mode == "wrap":
        return _math.floormod(i, n)
    if mode == "mirror":
        if n == 1:
            return _am.zeros_like(i)
        period = 2 * (n - 1)
        m = _math.floormod(i, period)
        return _am.where(_am.less(m, n), m, _am.subtract(period, m))
    period = 2 * n                                              # reflect
    m = _math.floormod(i, period)
    return _am.where(_am.less(m, n), m, _am.subtract(period - 1, m))


def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """`inputs` read at `coordinates` ([inputs' rank, ...]) by nearest (order 0) or linear
    (order 1) interpolation; outside, `fill_mode` maps each integer neighbour ("constant":
    `fill_value`)."""
    if order not in (0, 1):
        raise ValueError(f"keras.ops.image.map_coordinates(order={order!r}): expected 0 or 1.")
    if fill_mode not in _MAP_MODES:
        raise ValueError(f"keras.ops.image.map_coordinates(fill_mode={fill_mode!r}): expected "
                         f"one of {', '.join(_MAP_MODES)}.")
    x = _float(inputs)
    coords = _am.cast(_t(coordinates), x.dtype)
    rank = _rank(x, "map_coordinates")
    dims = x.shape.as_list()
    axes = [coords[i] for i in range(rank)]
    if order == 0:
        corners = [[(_am.cast(_am.round(c), _dtypes.int32), None)] for c in axes]
    else:
        corners = []
        for c in axes:
            low = _am.floor(c)
            frac = _am.subtract(c, low)
            i0 = _am.cast(low, _dtypes.int32)
            corners.append([(i0, _am.subtract(1.0, frac)), (_am.add(i0, 1), frac)])
    total = None
    for choice in np.ndindex(*[len(c) for c in corners]):
        index, weight, valid = [], None, None
        for axis, pick in enumerate(choice):
            i, w = corners[axis][pick]
            n = int(dims[axis])
            inside = _am.logical_and(_am.greater_equal(i, 0), _am.less(i, n))
            valid = inside if valid is None else _am.logical_and(valid, inside)
            mapped = _map_index(i, n, fill_mode)
            index.append(_am.clip_by_value(mapped, 0, n - 1))
            weight = w if weight is None else (weight if w is None else _am.multiply(weight, w))
        value = _rt.gather_nd(x, _rt.stack(index, axis=-1))
        if fill_mode == "constant":
            value = _am.where(valid, value, _am.fill(_am.shape(value), _am.cast(fill_value,
                                                                                x.dtype)))
        term = value if weight is None else _am.multiply(weight, value)
        total = term if total is None else _am.add(total, term)
    return total


def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    """The mean structural similarity of two batches of images (a Gaussian window of
    `filter_size` and `filter_sigma`, no padding), one value over the whole batch."""
    _channels_last(data_format, "image.ssim")
    a, added = _batched(_float(image1), "ssim")
    b = _am.cast(_batched(_t(image2), "ssim")[0], a.dtype)
    channels = int(a.shape[-1])
    window = _gaussian_kernel(int(filter_size), float(filter_sigma))
    kernel = np.tile(np.outer(window, window)[:, :, None, None], (1, 1, channels, 1)).astype(
        a.dtype.as_numpy_dtype)

    def blur(v):
        return _nn.depthwise_conv2d(v, kernel, [1, 1, 1, 1], "VALID")
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = blur(a), blur(b)
    s11 = _am.subtract(blur(_am.square(a)), _am.square(mu1))
    s22 = _am.subtract(blur(_am.square(b)), _am.square(mu2))
    s12 = _am.subtract(blur(_am.multiply(a, b)), _am.multiply(mu1, mu2))
    num = _am.multiply(_am.add(_am.multiply(_am.multiply(mu1, mu2), 2.0), c1),
                       _am.add(_am.multiply(s12, 2.0), c2))
    den = _am.multiply(_am.add(_am.add(_am.square(mu1), _am.square(mu2)), c1),
                       _am.add(_am.add(s11, s22), c2))
    return _am.reduce_mean(_am.divide(num, den))


# -- elastic deformation and JAX's scale_and_translate ---------------------------------------


def _fold_index(i: Tensor, n: int, mode: str) -> Tensor:
    """An integer index outside [0, n) mapped as Keras's TensorFlow backend maps it in
    `elastic_transform`: "reflect" folds |i| (so -1 reads 1 and n reads n - 1)."""
    if mode == "reflect":
        m = _math.floormod(_am.abs(i), 2 * n)
        return _am.where(_am.less(m, n), m, _am.subtract(2 * n - 1, m))
    if mode == "wrap":
        return _math.floormod(i, n)
    return i  # constant and nearest: clipped by the caller


def _map_spatial(x: Tensor, ys: Tensor, xs: Tensor, order: int, fill_mode: str,
                 fill_value) -> Tensor:
    """x [B, H, W, C] read at rows `ys` / columns `xs` [B, H, W] (every channel), as
    `map_coordinates` reads one plane: nearest (order 0) or linear (order 1), each integer
    neighbour mapped by `fill_mode`."""
    b, height, width, channels = (int(d) for d in x.shape)
    shape = [b, height, width, channels]
    batch = np.broadcast_to(np.arange(b, dtype=np.int32)[:, None, None, None], shape)
    chan = np.broadcast_to(np.arange(channels, dtype=np.int32), shape)
    ys, xs = _am.expand_dims(ys, -1), _am.expand_dims(xs, -1)
    if order == 0:
        corners = [[(_am.cast(_am.round(ys), _dtypes.int32), None)],
                   [(_am.cast(_am.round(xs), _dtypes.int32), None)]]
    else:
        corners = []
        for c in (ys, xs):
            low = _am.floor(c)
            i0 = _am.cast(low, _dtypes.int32)
            frac = _am.subtract(c, low)
            corners.append([(i0, _am.subtract(1.0, frac)), (_am.add(i0, 1), frac)])
    total = None
    for (r, wr) in corners[0]:
        for (c, wc) in corners[1]:
            valid = _am.logical_and(
                _am.logical_and(_am.greater_equal(r, 0), _am.less(r, height)),
                _am.logical_and(_am.greater_equal(c, 0), _am.less(c, width)))
            rows = _am.clip_by_value(_fold_index(r, height, fill_mode), 0, height - 1)
            cols = _am.clip_by_value(_fold_index(c, width, fill_mode), 0, width - 1)
            index = _rt.stack([batch, _am.add(rows, _am.zeros(shape, _dtypes.int32)),
                               _am.add(cols, _am.zeros(shape, _dtypes.int32)), chan], axis=-1)
            value = _rt.gather_nd(x, index)
            if fill_mode == "constant":
                value = _am.where(_am.logical_and(valid, _am.ones(shape, _dtypes.bool)), value,
                                  _am.fill(shape, _am.cast(fill_value, x.dtype)))
            weight = wr if wc is None else _am.multiply(wr, wc)
            term = value if weight is None else _am.multiply(weight, value)
            total = term if total is None else _am.add(total, term)
    return total


def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """Each image displaced by a random smooth field, as Keras's TensorFlow backend: normal
    noise [batch, h, w] times `sigma`, Gaussian-blurred (kernel 6 * int(sigma) | 1, `sigma`),
    times `alpha`, added to both the row and the column of every pixel (Keras draws the two
    fields from one seed, so they are equal), the image read there by `map_coordinates`
    (bilinear: order 1, nearest: order 0) with `fill_mode` ("reflect" folds |index|, as
    that backend). `seed`: an int (the same values as TensorFlow's), a
    `keras.random.SeedGenerator` or None. Integer images are computed in float32."""
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError("Invalid value for argument `interpolation`. Expected of one "
                         f"('nearest', 'bilinear'). Received: interpolation={interpolation}")
    if fill_mode not in _FILL_MODES:
        raise ValueError("Invalid value for argument `fill_mode`. Expected of one "
                         f"{_FILL_MODES}. Received: fill_mode={fill_mode}")
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"keras.ops.image.elastic_transform(data_format={data_format!r}): "
                         "expected 'channels_last' or 'channels_first'.")
    x = _t(images)
    input_dtype = x.dtype
    rank = _rank(x, "elastic_transform")
    if rank not in (3, 4):
        raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 "
                         f"(batch of images). Received input with shape: images.shape={x.shape}")
    x = _float(x)
    added = rank == 3
    if added:
        x = _am.expand_dims(x, 0)
    if data_format == "channels_first":
        x = _am.transpose(x, [0, 2, 3, 1])
    if None in x.shape.as_list():
        raise ValueError(f"keras.ops.image.elastic_transform needs the images' shape known, "
                         f"got {x.shape}.")
    b, height, width, _ = (int(d) for d in x.shape)
    dtype = x.dtype
    size = 6 * int(sigma) | 1
    noise = _am.multiply(_stateless.stateless_normal([b, height, width], draw_seed(seed),
                                                     dtype=dtype), _am.cast(sigma, dtype))
    field = gaussian_blur(_am.expand_dims(noise, -1), (size, size), (float(sigma),) * 2)[..., 0]
    shift = _am.multiply(_am.cast(alpha, dtype), field)
    gy, gx = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    ys = _am.add(_am.cast(gy, dtype), shift)
    xs = _am.add(_am.cast(gx, dtype), shift)
    out = _map_spatial(x, ys, xs, 0 if interpolation == "nearest" else 1, fill_mode,
                       fill_value)
    if data_format == "channels_first":
        out = _am.transpose(out, [0, 3, 1, 2])
    out = out[0] if added else out
    return out if out.dtype is input_dtype else _am.cast(out, input_dtype)


def _triangle(x: Tensor) -> Tensor:
    return _am.maximum(_am.subtract(1.0, _am.abs(x)), 0.0)


def _keys_cubic(x: Tensor) -> Tensor:
    inner = _am.add(_am.multiply(_am.multiply(_am.subtract(_am.multiply(x, 1.5), 2.5), x), x),
                    1.0)
    outer = _am.add(_am.multiply(_am.subtract(_am.multiply(
        _am.add(_am.multiply(x, -0.5), 2.5), x), 4.0), x), 2.0)
    out = _am.where(_am.greater_equal(x, 1.0), outer, inner)
    return _am.where(_am.greater_equal(x, 2.0), _am.zeros_like(x), out)


def _lanczos(radius: float):
    def kernel(x: Tensor) -> Tensor:
        y = _am.multiply(_am.multiply(radius, _am.sin(_am.multiply(np.pi, x))),
                         _am.sin(_am.multiply(np.pi / radius, x)))
        safe = _am.where(_am.equal(x, 0.0), _am.ones_like(x), x)
        out = _am.where(_am.greater(x, 1e-3), _am.divide(y, _am.multiply(np.pi ** 2,
                                                                         _am.square(safe))),
                        _am.ones_like(x))
        return _am.where(_am.greater(x, radius), _am.zeros_like(x), out)
    return kernel


_RESAMPLE_KERNELS = {"linear": _triangle, "bilinear": _triangle, "trilinear": _triangle,
                     "triangle": _triangle, "cubic": _keys_cubic, "bicubic": _keys_cubic,
                     "tricubic": _keys_cubic, "lanczos3": _lanczos(3.0),
                     "lanczos5": _lanczos(5.0)}


def _resample_weights(size_in: int, size_out: int, scale: Tensor, translation: Tensor, kernel,
                      antialias: bool) -> Tensor:
    """The [size_in, size_out] weights of JAX's scale_and_translate along one axis."""
    dtype = scale.dtype
    inv = _am.divide(_am.cast(1.0, dtype), scale)
    kernel_scale = _am.maximum(inv, _am.cast(1.0, dtype)) if antialias else _am.cast(1.0, dtype)
    out_pos = _am.cast(np.arange(size_out) + 0.5, dtype)
    sample = _am.subtract(_am.subtract(_am.multiply(out_pos, inv),
                                       _am.multiply(translation, inv)), 0.5)
    distance = _am.abs(_am.subtract(_am.expand_dims(sample, 0),
                                    _am.cast(np.arange(size_in)[:, None], dtype)))
    weights = kernel(_am.divide(distance, kernel_scale))
    total = _am.reduce_sum(weights, axis=0, keepdims=True)
    safe = _am.where(_am.equal(total, 0.0), _am.ones_like(total), total)
    weights = _am.where(_am.greater(_am.abs(total), 1000.0 * float(np.finfo(np.float32).eps)),
                        _am.divide(weights, safe), _am.zeros_like(weights))
    inside = _am.logical_and(_am.greater_equal(sample, -0.5),
                             _am.less_equal(sample, size_in - 0.5))
    return _am.where(_am.expand_dims(inside, 0), weights, _am.zeros_like(weights))


def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    """JAX's `image.scale_and_translate`: an image of `output_shape` (the full shape) whose
    pixel centre y (along each of `spatial_dims`) samples the input at (y - translation) /
    scale, half-pixel centred, with the `method` kernel ("linear", "cubic" (Keys),
    "lanczos3", "lanczos5", and their aliases), widened when downsampling with
    `antialias`; zero where the sample falls outside the input. Integer images are rounded
    and clipped to their range."""
    if method not in _RESAMPLE_KERNELS:
        raise ValueError("Invalid value for argument `method`. Expected of one "
                         f"{sorted(_RESAMPLE_KERNELS)}. Received: method={method}")
    x = _t(images)
    scale, translation = _t(scale), _t(translation)
    dtype = _dtypes.from_numpy(np.result_type(scale.dtype.as_numpy_dtype,
                                              translation.dtype.as_numpy_dtype))
    if not dtype.is_floating:
        dtype = _dtypes.float32
    scale, translation = _am.cast(scale, dtype), _am.cast(translation, dtype)
    rank = x.shape.rank
    output_shape = [int(d) for d in output_shape]
    if len(output_shape) != rank:
        raise ValueError(f"scale_and_translate: output_shape {tuple(output_shape)} must give "
                         f"every dimension of images (rank {rank}).")
    if len(spatial_dims) == 0:
        return x
    rounding = x.dtype.is_integer
    out = _am.cast(x, _dtypes.float32) if rounding else x
    for i, d in enumerate(spatial_dims):
        d = int(d) % rank
        w = _resample_weights(int(x.shape[d]), output_shape[d], scale[i], translation[i],
                              _RESAMPLE_KERNELS[method], bool(antialias))
        out = _rt.tensordot(out, _am.cast(w, out.dtype), [[d], [0]])
        order = list(range(rank - 1))
        order.insert(d, rank - 1)
        out = _am.transpose(out, order)
    if rounding:
        out = _am.clip_by_value(_am.round(out), _am.cast(_am.reduce_min(x), out.dtype),
                                _am.cast(_am.reduce_max(x), out.dtype))
        out = _am.cast(out, x.dtype)
    return out


__all__ = ["affine_transform", "crop_images", "elastic_transform", "extract_patches",
           "extract_patches_3d", "gaussian_blur",
           "hsv_to_rgb", "map_coordinates", "pad_images", "perspective_transform", "resize",
           "rgb_to_grayscale", "rgb_to_hsv", "scale_and_translate", "sobel_edges", "ssim"]
