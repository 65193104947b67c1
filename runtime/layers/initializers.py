"""Weight initializers: callables `(shape, dtype) -> tensor` that layers use in `add_weight`.

Random initializers draw as Keras 3's: an initializer made without a seed takes one from
Python's `random` (so `keras.utils.set_random_seed` makes them reproducible), and each call
is a stateless draw from that seed, so it gives the same values every time and TensorFlow's
numbers for the same seed.
"""

from __future__ import annotations

import inspect
import math
import random as _pyrandom
from typing import Callable

import numpy as np

from .. import dtypes as _dtypes
from ..ops import random_stateless
from ..ops.core import constant


class Initializer:
    """Base class: `initializer(shape, dtype)` returns an eager tensor of that shape.

    `get_config()` is the constructor's arguments as Keras 3 writes them (read back from the
    attributes of the same names); `from_config(config)` makes the initializer again.
    """

    def __call__(self, shape, dtype=_dtypes.float32):
        raise NotImplementedError

    def get_config(self) -> dict:
        params = inspect.signature(type(self).__init__).parameters
        config = {key: getattr(self, key) for key in params
                  if key != "self" and hasattr(self, key)}
        if "seed" in config:
            config["seed"] = self._init_seed  # None stays None, as Keras writes it
        return config

    @classmethod
    def from_config(cls, config: dict) -> "Initializer":
        return cls(**config)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape, dtype=_dtypes.float32):
        return constant(np.zeros(tuple(shape), _dtypes.as_dtype(dtype).as_numpy_dtype))


class Ones(Initializer):
    """All ones."""

    def __call__(self, shape, dtype=_dtypes.float32):
        return constant(np.ones(tuple(shape), _dtypes.as_dtype(dtype).as_numpy_dtype))


class Constant(Initializer):
    """Every element equal to `value`."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=_dtypes.float32):
        return constant(np.full(tuple(shape), self.value, _dtypes.as_dtype(dtype).as_numpy_dtype))

    def __repr__(self) -> str:
        return f"Constant({self.value!r})"


class RandomUniform(Initializer):
    """Uniform values in [minval, maxval)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval = minval, maxval
        _take_seed(self, seed)

    def __call__(self, shape, dtype=_dtypes.float32):
        return random_stateless.stateless_uniform(list(shape), _seed_pair(self.seed),
                                                  self.minval, self.maxval, dtype=dtype)


class RandomNormal(Initializer):
    """Normal values with the given mean and standard deviation."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = mean, stddev
        _take_seed(self, seed)

    def __call__(self, shape, dtype=_dtypes.float32):
        return random_stateless.stateless_normal(list(shape), _seed_pair(self.seed), self.mean,
                                                 self.stddev, dtype=dtype)


def keras_seed(seed):
    """`seed`, or when it is None a fresh one from Python's `random`, as Keras 3 takes one for
    an initializer or a layer's SeedGenerator (so `keras.utils.set_random_seed` fixes it)."""
    return _pyrandom.randint(1, int(1e9)) if seed is None else seed


def _take_seed(initializer, seed) -> None:
    """Keeps the seed given (for get_config) and the one the draws use."""
    initializer._init_seed = seed
    initializer.seed = keras_seed(seed)


def _seed_pair(seed):
    """The stateless seed of a draw: a keras.random.SeedGenerator's next one, or [seed, 0]
    reduced as Keras's TensorFlow backend reduces it to int32."""
    if hasattr(seed, "next"):
        return seed.next()
    return np.array([int(seed) % (2 ** 31 - 2), 0], np.int32)


def _fans(shape) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight shape; leading dims of a conv kernel count as receptive field."""
    shape = tuple(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Values with variance `scale / n`, n being fan_in, fan_out or their mean (`mode`)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        # with both given, fan_in / fan_out are the products of the shape's sizes along them
        # (an einsum kernel's input and output axes), as Keras 3 computes them
        self.input_axes = _axes(type(self).__name__, "input_axes", input_axes)
        self.output_axes = _axes(type(self).__name__, "output_axes", output_axes)
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"VarianceScaling mode must be fan_in, fan_out or fan_avg, got {mode!r}.")
        if distribution not in ("uniform", "normal", "truncated_normal", "untruncated_normal"):
            raise ValueError("VarianceScaling distribution must be uniform, normal, "
                             f"truncated_normal or untruncated_normal, got {distribution!r}.")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        _take_seed(self, seed)

    def __call__(self, shape, dtype=_dtypes.float32):
        fan_in, fan_out = _fans(shape)
        if self.input_axes is not None and self.output_axes is not None:
            fan_in = int(np.prod([tuple(shape)[a] for a in self.input_axes], dtype=np.int64))
            fan_out = int(np.prod([tuple(shape)[a] for a in self.output_axes], dtype=np.int64))
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        pair = _seed_pair(self.seed)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return random_stateless.stateless_uniform(list(shape), pair, -limit, limit,
                                                      dtype=dtype)
        stddev = math.sqrt(variance)
        if self.distribution == "truncated_normal":
            return random_stateless.stateless_truncated_normal(
                list(shape), pair, 0.0, stddev / 0.87962566103423978, dtype=dtype)
        return random_stateless.stateless_normal(list(shape), pair, 0.0, stddev, dtype=dtype)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(scale={self.scale}, mode={self.mode!r}, "
                f"distribution={self.distribution!r})")

    def get_config(self) -> dict:
        config = {"seed": self._init_seed, "input_axes": self.input_axes,
                  "output_axes": self.output_axes}
        if type(self) is VarianceScaling:
            config.update(scale=self.scale, mode=self.mode, distribution=self.distribution)
        return config


def _axes(name: str, what: str, axes):
    """None, or a list of ints: the axes of a weight's shape counted into its fan."""
    if axes is None:
        return None
    if not isinstance(axes, (list, tuple)) or \
            not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise ValueError(f"{name}: `{what}` must be None or a list of ints (axes of the "
                         f"weight's shape), got {axes!r}.")
    return list(axes)


class GlorotUniform(VarianceScaling):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio, 2010)."""

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_avg", "uniform", seed, input_axes, output_axes)


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, input_axes, output_axes)


class HeUniform(VarianceScaling):
    """Uniform in ±sqrt(6 / fan_in) (He et al., 2015), suited to relu layers."""

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(2.0, "fan_in", "uniform", seed, input_axes, output_axes)


class HeNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in)."""

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed, input_axes, output_axes)


class LecunUniform(VarianceScaling):
    """Uniform in ±sqrt(3 / fan_in) (LeCun et al., 1998)."""

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_in", "uniform", seed, input_axes, output_axes)


class LecunNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(1 / fan_in)."""

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed, input_axes, output_axes)


class TruncatedNormal(Initializer):
    """Normal values with the given mean and standard deviation, those beyond two standard
    deviations redrawn."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = mean, stddev
        _take_seed(self, seed)

    def __call__(self, shape, dtype=_dtypes.float32):
        return random_stateless.stateless_truncated_normal(
            list(shape), _seed_pair(self.seed), self.mean, self.stddev, dtype=dtype)


class Identity(Initializer):
    """`gain` times the identity matrix (ones on the main diagonal of a 2-D shape)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def get_config(self) -> dict:
        return {} if self.gain == 1.0 else {"gain": self.gain}  # Keras 3 writes {}

    def __call__(self, shape, dtype=_dtypes.float32):
        if len(tuple(shape)) != 2:
            raise ValueError(f"Identity initializer can only be used for 2D matrices, got "
                             f"shape {tuple(shape)}.")
        rows, cols = shape
        return constant((self.gain * np.eye(rows, cols)).astype(
            _dtypes.as_dtype(dtype).as_numpy_dtype))


class Orthogonal(Initializer):
    """A random orthogonal matrix times `gain` (of the shape flattened to [prod(shape[:-1]),
    shape[-1]]: orthonormal rows or columns, whichever are fewer), from the QR decomposition
    of normal draws with the signs of R's diagonal."""

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        _take_seed(self, seed)

    def __call__(self, shape, dtype=_dtypes.float32):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializer needs a shape of rank >= 2, got {shape}.")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        np_dtype = _dtypes.as_dtype(dtype).as_numpy_dtype
        draws = random_stateless.stateless_normal([max(rows, cols), min(rows, cols)],
                                                  _seed_pair(self.seed), dtype=dtype).numpy()
        q, r = np.linalg.qr(draws)  # in the draw's dtype, as Keras's
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return constant((np_dtype(self.gain) * q).reshape(shape).astype(np_dtype))


_WINDOWS = {"hann": np.hanning, "hanning": np.hanning, "hamming": np.hamming,
            "blackman": np.blackman, "bartlett": np.bartlett, "boxcar": np.ones,
            "ones": np.ones, "rectangular": np.ones}


def get_window(name: str, length: int, periodic: bool = False) -> np.ndarray:
    """scipy.signal.get_window(name, length, fftbins=periodic): a symmetric window, or
    (`periodic`) the first `length` samples of the symmetric one of length + 1. Names
    other than hann, hamming, blackman, bartlett and boxcar need SciPy."""
    if name in _WINDOWS:
        return _WINDOWS[name](length + 1)[:length] if periodic else _WINDOWS[name](length)
    try:
        from scipy import signal  # noqa: PLC0415 - optional, for scipy's other windows
    except ImportError:
        raise ValueError(f"Unknown window {name!r}: use one of {sorted(_WINDOWS)}, or install "
                         "SciPy for scipy.signal.get_window's other windows.") from None
    return np.asarray(signal.get_window(name, length, periodic))


class STFT(Initializer):
    """Keras's STFT kernel initializer: for shape (frame_length, channels, bins), the real
    (cos) or imaginary (sin) part of the DFT of each frame sample at bins 0..bins-1 of an
    FFT of (bins - 1) * 2 points, times `window` (a name, an array or None) divided by
    sqrt(sum(window^2)) ("density") or sum(|window|) ("spectrum"); `periodic` windows."""

    def __init__(self, side: str = "real", window="hann", scaling="density",
                 periodic: bool = False) -> None:
        if side not in ("real", "imag"):
            raise ValueError(f"side should be 'real' or 'imag', not {side}")
        if isinstance(window, str):
            get_window(window, 1)
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError("Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                             f"Received scaling={scaling}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def __call__(self, shape, dtype=_dtypes.float32):
        np_dtype = _dtypes.as_dtype(dtype).as_numpy_dtype
        frame_length, _, bins = (int(d) for d in shape)
        freq = np.arange(bins, dtype=np.float64)[None, None, :] / ((bins - 1) * 2)
        time = np.arange(frame_length, dtype=np.float64)[:, None, None]
        args = -2 * time * freq * np.pi
        kernel = np.cos(args) if self.side == "real" else np.sin(args)
        if self.window is not None:
            win = (get_window(self.window, frame_length, self.periodic)
                   if isinstance(self.window, str) else np.asarray(self.window, np.float64))
            if win.ndim != 1 or win.shape[-1] != frame_length:
                raise ValueError("The shape of `window` must be equal to [frame_length]."
                                 f"Received: window shape={win.shape}")
            win = win.reshape(frame_length, 1, 1)
            scale = 1.0
            if self.scaling == "density":
                scale = np.sqrt(np.sum(win ** 2))
            elif self.scaling == "spectrum":
                scale = np.sum(np.abs(win))
            kernel = kernel * win / scale
        return constant(np.broadcast_to(kernel, (frame_length, shape[1], bins))
                        .astype(np_dtype))

    def get_config(self) -> dict:
        return {"side": self.side, "window": self.window, "periodic": self.periodic,
                "scaling": self.scaling}


_BY_NAME: dict[str, type] = {
    "zeros": Zeros, "ones": Ones, "constant": Constant,
    "random_uniform": RandomUniform, "random_normal": RandomNormal,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "he_uniform": HeUniform, "he_normal": HeNormal, "lecun_uniform": LecunUniform,
    "lecun_normal": LecunNormal, "truncated_normal": TruncatedNormal, "identity": Identity,
    "orthogonal": Orthogonal, "variance_scaling": VarianceScaling,
    "uniform": RandomUniform, "normal": RandomNormal,  # Keras's short names
    "stft": STFT,
}
_BY_CLASS = {cls.__name__: cls for cls in _BY_NAME.values()}
_BY_CLASS.update(IdentityInitializer=Identity, OrthogonalInitializer=Orthogonal,
                 STFTInitializer=STFT)


def serialize(initializer: Initializer) -> dict:
    """Keras 3's `{"module", "class_name", "config", "registered_name"}` of one of these
    initializers."""
    return {"module": "keras.initializers", "class_name": type(initializer).__name__,
            "config": initializer.get_config(), "registered_name": None}


def is_builtin(value) -> bool:
    """True for an initializer of this module's classes (not a subclass of your own)."""
    return type(value) in _BY_CLASS.values()


def get(identifier) -> Callable:
    """An initializer from a name (`"glorot_uniform"`, `"zeros"`, a class name such as
    `"GlorotUniform"`), a `serialize` dict, or a callable."""
    if isinstance(identifier, dict) and identifier.get("class_name") in _BY_CLASS and \
            isinstance(identifier.get("config", {}), dict):
        return _BY_CLASS[identifier["class_name"]].from_config(identifier.get("config", {}))
    if isinstance(identifier, str) and identifier in _BY_CLASS:
        return _BY_CLASS[identifier]()
    if isinstance(identifier, str):
        key = identifier.lower()
        if key not in _BY_NAME:
            raise ValueError(f"Unknown initializer {identifier!r}; known names are "
                             f"{sorted(_BY_NAME)}, or pass a callable (shape, dtype) -> value.")
        return _BY_NAME[key]()
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise TypeError(f"An initializer must be a name or a callable (shape, dtype) -> value, "
                    f"got {identifier!r}.")
