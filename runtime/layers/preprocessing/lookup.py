"""Keras's categorical preprocessing layers: CategoryEncoding, Discretization, StringLookup,
IntegerLookup and TextVectorization, computed with NumPy (eagerly, or as one `PyFunc` op of
the NumPy tier inside a compiled function)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np

from ...errors import InvalidArgumentError
from ...ops.core import convert_to_tensor
from .. import serialization as _serialization
from ..base import Layer
from ._common import TokenRows, adapt_batches, as_numpy, run_numpy
from .farmhash import fingerprint64

_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
_PUNCTUATION = re.compile(r'[!"#$%&()\*\+,\-\./:;<=>?@\[\\\]^_`{|}~\']')


# Keras's deprecated names of output modes, still accepted by the lookups, TextVectorization
# and (binary only) CategoryEncoding
_OLD_MODES = {"binary": "multi_hot", "tf-idf": "tf_idf"}


def _check_mode(mode: str, layer: str, allowed=_MODES, old_names: tuple = ()) -> str:
    """`mode` (or the current name of a deprecated one in `old_names`), if it is allowed."""
    if mode in old_names:
        mode = _OLD_MODES[mode]
    if mode not in allowed:
        raise ValueError(f"{layer}: `output_mode` must be one of {', '.join(map(repr, allowed))},"
                         f" got output_mode={mode!r}.")
    return mode


def encode(indices: np.ndarray, mode: str, depth: int, dtype, weights=None) -> np.ndarray:
    """Keras's `encode_categorical_inputs`: one_hot adds an axis (a trailing axis of 1 is
    replaced); multi_hot, count and tf_idf reduce the last axis (a rank-0 or rank-1 input is
    one sample)."""
    indices = np.asarray(indices, np.int64)
    if indices.size and (indices.min() < 0 or indices.max() >= depth):
        raise InvalidArgumentError(f"Input values must be in the range 0 <= values "
                                   f"< num_tokens with num_tokens={depth}, got values from "
                                   f"{indices.min()} to {indices.max()}.")
    if mode == "one_hot":
        if indices.ndim > 1 and indices.shape[-1] == 1:
            indices = indices[..., 0]
        return np.eye(depth, dtype=dtype)[indices]
    if indices.ndim == 0:
        indices = indices[None]
    flat = indices.reshape(-1, indices.shape[-1])
    out = np.zeros((flat.shape[0], depth), np.float64)
    rows = np.repeat(np.arange(flat.shape[0]), flat.shape[1])
    np.add.at(out, (rows, flat.reshape(-1)), 1.0)
    if mode == "multi_hot":
        out = np.minimum(out, 1.0)
    elif weights is not None:
        out = out * np.asarray(weights)
    return out.reshape(indices.shape[:-1] + (depth,)).astype(dtype)


class CategoryEncoding(Layer):
    """Integer category ids to one_hot, multi_hot (default) or count vectors of size
    `num_tokens`; `count_weights` weight the counts. Ids outside [0, num_tokens) fail."""

    _convert_input_args = False  # ids are taken as given (Keras does not cast them)
    _config_defaults_kept_out = {"sparse": False}  # as Keras 3's config

    def __init__(self, num_tokens=None, output_mode: str = "multi_hot", sparse: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if num_tokens is None or int(num_tokens) < 1:
            raise ValueError(f"CategoryEncoding: `num_tokens` must be a positive int, got "
                             f"num_tokens={num_tokens!r}.")
        output_mode = _check_mode(output_mode, "CategoryEncoding",
                                  ("one_hot", "multi_hot", "count"), ("binary",))
        if sparse:
            raise NotImplementedError("CategoryEncoding(sparse=True) is not implemented here; "
                                      "use sparse=False (dense outputs).")
        self.num_tokens, self.output_mode, self.sparse = int(num_tokens), output_mode, False

    def call(self, inputs, count_weights=None):
        inputs = convert_to_tensor(inputs)
        dtype = self._dtype.as_numpy_dtype
        shape = _encoded_shape(inputs.shape, self.output_mode, self.num_tokens)
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError("CategoryEncoding: `count_weights` is only allowed with "
                                 f"output_mode='count', got output_mode={self.output_mode!r}.")
            weights = as_numpy(count_weights)
            return run_numpy(lambda x: _weighted_count(x, weights, self.num_tokens, dtype),
                             inputs, self.dtype, shape)
        return run_numpy(lambda x: encode(x, self.output_mode, self.num_tokens, dtype),
                         inputs, self.dtype, shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config["output_mode"] = self.output_mode  # "binary" given: "multi_hot"
        return config


def _weighted_count(x, weights, depth, dtype) -> np.ndarray:
    x = np.asarray(x, np.int64)
    flat, w = x.reshape(-1, x.shape[-1]), np.broadcast_to(weights, x.shape).reshape(-1,
                                                                                   x.shape[-1])
    out = np.zeros((flat.shape[0], depth), np.float64)
    for row in range(flat.shape[0]):
        np.add.at(out[row], flat[row], w[row])
    return out.reshape(x.shape[:-1] + (depth,)).astype(dtype)


def _encoded_shape(shape, mode: str, depth: int):
    dims = shape.as_list() if shape.rank is not None else None
    if dims is None:
        return None
    if mode == "int":
        return dims
    if mode == "one_hot":
        if len(dims) > 1 and dims[-1] == 1:
            dims = dims[:-1]
        return dims + [depth]
    return (dims[:-1] if dims else []) + [depth]


class Discretization(Layer):
    """Buckets numbers by `bin_boundaries` (bucket i holds boundaries[i-1] <= x <
    boundaries[i]), or by `num_bins` quantile boundaries learned with `adapt`; `output_mode`
    int (int32 ids, the default), one_hot, multi_hot or count."""

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon: float = 0.01,
                 output_mode: str = "int", sparse: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if bin_boundaries is None and num_bins is None:
            raise ValueError("Discretization: give `bin_boundaries` or `num_bins` (then call "
                             "adapt), got neither.")
        if (bin_boundaries is not None and num_bins is not None
                and len(bin_boundaries) != num_bins - 1):
            raise ValueError(f"Discretization: `bin_boundaries` ({len(bin_boundaries)} values) "
                             f"and num_bins={num_bins} do not agree: num_bins must be one more "
                             "than the number of boundaries.")
        _check_mode(output_mode, "Discretization", ("int", "one_hot", "multi_hot", "count"))
        if sparse:
            raise NotImplementedError("Discretization(sparse=True) is not implemented here.")
        self.bin_boundaries = None if bin_boundaries is None else [float(b) for b in
                                                                   bin_boundaries]
        self.num_bins, self.epsilon, self.output_mode, self.sparse = (
            num_bins, epsilon, output_mode, False)

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learns `num_bins - 1` boundaries splitting the data's values into equal parts."""
        if self.num_bins is None:
            raise ValueError("Discretization.adapt needs a layer made with `num_bins`.")
        values = np.sort(np.concatenate([np.asarray(b, np.float64).ravel()
                                         for b in adapt_batches(data, "Discretization")]))
        positions = [i * values.size / self.num_bins - 1 for i in range(1, self.num_bins)]
        self.bin_boundaries = [float(np.float32(np.interp(p, np.arange(values.size), values)))
                               for p in positions]

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        if self.bin_boundaries is None:
            raise ValueError(f"{self.name}: call `adapt` (or give `bin_boundaries`) before "
                             "using the layer.")
        bounds = np.asarray(self.bin_boundaries, np.float64)
        depth = len(bounds) + 1
        if self.output_mode == "int":
            return run_numpy(lambda x: np.digitize(np.asarray(x, np.float64), bounds)
                             .astype(np.int32), inputs, "int32", inputs.shape.as_list()
                             if inputs.shape.rank is not None else None)
        dtype = self._dtype.as_numpy_dtype
        return run_numpy(lambda x: encode(np.digitize(np.asarray(x, np.float64), bounds),
                                          self.output_mode, depth, dtype),
                         inputs, self.dtype, _encoded_shape(inputs.shape, self.output_mode,
                                                            depth))

    def get_config(self) -> dict:
        config = _serialization.plain_dtype_config(self)  # Keras's keys: no `trainable`
        config["bin_boundaries"] = self.bin_boundaries
        config["num_bins"] = self.num_bins
        return config


class _IndexLookup(Layer):
    """Keras's IndexLookup: a vocabulary (the mask token, then `num_oov_indices` OOV
    slots, then the tokens) mapping tokens to ids, or ids back to tokens with `invert`."""

    _strings = True
    _convert_input_args = False  # tokens are taken as given (Keras does not cast them)

    def __init__(self, max_tokens=None, num_oov_indices: int = 1, mask_token=None,
                 oov_token=None, vocabulary=None, idf_weights=None, invert: bool = False,
                 output_mode: str = "int", pad_to_max_tokens: bool = False,
                 sparse: bool = False, **kwargs: Any) -> None:
        kind = type(self).__name__
        super().__init__(**kwargs)
        output_mode = _check_mode(output_mode, kind, _MODES, tuple(_OLD_MODES))
        if invert and output_mode != "int":
            raise ValueError(f"{kind}: `output_mode` must be 'int' when `invert` is True, got "
                             f"output_mode={output_mode!r}.")
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"{kind}: `max_tokens` must be greater than 1 (or None), got "
                             f"max_tokens={max_tokens!r}.")
        if num_oov_indices < 0:
            raise ValueError(f"{kind}: `num_oov_indices` must be >= 0, got "
                             f"num_oov_indices={num_oov_indices!r}.")
        if sparse:
            raise NotImplementedError(f"{kind}(sparse=True) is not implemented here.")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"{kind}: `idf_weights` is only used with output_mode='tf_idf', "
                             f"got output_mode={output_mode!r}.")
        self.max_tokens, self.num_oov_indices = max_tokens, int(num_oov_indices)
        self.mask_token, self.oov_token = mask_token, oov_token
        self.invert, self.output_mode = bool(invert), output_mode
        self.pad_to_max_tokens, self.sparse = bool(pad_to_max_tokens), False
        self._tokens: list = []
        self._idf: np.ndarray | None = None
        self._token_index: dict = {}
        self._set_tokens([])
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- vocabulary ----------------------------------------------------------------------
    def _key(self, token):
        return token

    def _special(self) -> list:
        head = [] if self.mask_token is None else [self.mask_token]
        return head + [self.oov_token] * self.num_oov_indices

    def _start(self) -> int:
        return len(self._special())

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The vocabulary in id order (mask and OOV tokens first unless excluded)."""
        return (self._special() if include_special_tokens else []) + list(self._tokens)

    def vocabulary_size(self) -> int:
        """The number of ids (special tokens included)."""
        return self._start() + len(self._tokens)

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Sets the tokens (a list, an array, a tensor or a file of one token per line);
        special tokens at the head of the list are dropped, as Keras does."""
        kind = type(self).__name__
        if isinstance(vocabulary, str):
            with open(vocabulary, encoding="utf-8") as handle:
                vocabulary = [line.rstrip("\n") for line in handle]
            vocabulary = [self._from_text(t) for t in vocabulary]
        tokens = [self._key(t) for t in as_numpy(vocabulary).ravel().tolist()]
        special = [self._key(t) for t in self._special()]
        if tokens[:len(special)] == special and special:
            tokens = tokens[len(special):]
        if self.mask_token is not None and self._key(self.mask_token) in tokens:
            raise ValueError(f"{kind}: the mask token {self.mask_token!r} is in the vocabulary "
                             "at a place other than index 0.")
        if len(set(tokens)) != len(tokens):
            dup = sorted({t for t in tokens if tokens.count(t) > 1}, key=str)
            raise ValueError(f"{kind}: the vocabulary has repeated tokens: {dup}.")
        if self.max_tokens is not None and len(tokens) + self._start() > self.max_tokens:
            raise ValueError(f"{kind}: a vocabulary of {len(tokens) + self._start()} ids "
                             f"(special tokens included) exceeds max_tokens={self.max_tokens}.")
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError(f"{kind}: output_mode='tf_idf' needs `idf_weights` with a "
                                 "given vocabulary (or learn both with adapt).")
            weights = np.asarray(as_numpy(idf_weights), np.float32).ravel()
            if weights.size == len(tokens):
                pad = np.full(self._start(), weights.mean() if weights.size else 0.0)
                weights = np.concatenate([pad, weights]).astype(np.float32)
            self._idf = weights
        self._set_tokens(tokens)

    def _from_text(self, line: str):
        return line

    def _set_tokens(self, tokens: list) -> None:
        self._tokens = list(tokens)
        self._token_index = {t: i + self._start() for i, t in enumerate(self._tokens)}
        if self.mask_token is not None:  # the mask token looks up to 0
            self._token_index[self._key(self.mask_token)] = 0

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learns the vocabulary: tokens by decreasing count, ties in decreasing token order
        (as Keras sorts them), at most `max_tokens` ids in all; with tf_idf, the inverse
        document frequencies."""
        counts: Counter = Counter()
        documents: Counter = Counter()
        n_docs = 0
        for batch in adapt_batches(data, type(self).__name__):
            rows = self._documents(batch)
            for row in rows:
                keys = [self._key(t) for t in row]
                counts.update(keys)
                documents.update(set(keys))
            n_docs += len(rows)
        for special in {self._key(t) for t in self._special() if t is not None}:
            counts.pop(special, None)
        ordered = sorted(counts, key=lambda t: (counts[t], t), reverse=True)
        if self.max_tokens is not None:
            ordered = ordered[:max(self.max_tokens - self._start(), 0)]
        self._set_tokens(ordered)
        if self.output_mode == "tf_idf":
            idf = np.log1p(n_docs / (1.0 + np.asarray([documents[t] for t in ordered],
                                                       np.float64)))
            pad = np.full(self._start(), idf.mean() if idf.size else 0.0)
            self._idf = np.concatenate([pad, idf]).astype(np.float32)

    def _documents(self, batch) -> list:
        if isinstance(batch, TokenRows):
            return [list(row) for row in batch]
        batch = np.asarray(batch, dtype=object)
        if batch.ndim == 0:
            return [[batch.item()]]
        if batch.ndim == 1:
            return [[v] for v in batch.tolist()] if not isinstance(batch[0], (list, tuple,
                                                                              np.ndarray)) \
                else [list(v) for v in batch.tolist()]
        return [list(np.ravel(row)) for row in batch]

    # -- calling ------------------------------------------------------------------------
    def _lookup(self, x: np.ndarray) -> np.ndarray:
        keys = np.asarray(x, dtype=object)
        table = self._token_index
        oov_start = 0 if self.mask_token is None else 1
        flat = [self._key(token) for token in keys.ravel().tolist()]
        ids = [table.get(key, -1) for key in flat]
        if -1 in ids:
            for pos, index in enumerate(ids):
                if index == -1:
                    ids[pos] = oov_start + self._oov_id(flat[pos])
        return np.asarray(ids, np.int64).reshape(keys.shape)

    def _oov_id(self, key) -> int:
        if self.num_oov_indices == 0:
            raise InvalidArgumentError("When `num_oov_indices=0` all inputs should be in "
                                       f"vocabulary, found OOV value {key!r}; consider "
                                       "setting `num_oov_indices=1`.")
        return self._oov_slot(key)

    def _oov_slot(self, key) -> int:
        if self.num_oov_indices == 1:
            return 0
        return fingerprint64(_text(key).encode("utf-8")) % self.num_oov_indices

    def _inverse(self, x: np.ndarray):
        vocab = self.get_vocabulary()
        ids = np.asarray(x, np.int64)
        out = np.empty(ids.shape, dtype=object)
        for pos, i in np.ndenumerate(ids):
            out[pos] = self._to_output(vocab[i] if 0 <= i < len(vocab) else self.oov_token)
        return self._inverse_array(out)

    def _to_output(self, token):
        return token

    def _inverse_array(self, out: np.ndarray) -> np.ndarray:
        return out

    def _depth(self) -> int:
        return self.max_tokens if self.pad_to_max_tokens and self.max_tokens else \
            self.vocabulary_size()

    def _encode(self, x: np.ndarray) -> np.ndarray:
        ids = self._lookup(x)
        if self.output_mode == "int":
            return ids
        if self.output_mode == "tf_idf":
            weights = np.zeros(self._depth(), np.float32)
            weights[:len(self._idf)] = self._idf
            return encode(ids, "count", self._depth(), np.float32, weights)
        return encode(ids, self.output_mode, self._depth(), np.int64)

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        shape = inputs.shape.as_list() if inputs.shape.rank is not None else None
        if self.invert:
            return run_numpy(self._inverse, inputs, self._inverse_dtype(), shape)
        if self.output_mode != "int" and shape is not None:
            shape = _encoded_shape(inputs.shape, self.output_mode, self._depth())
        dtype = "float32" if self.output_mode == "tf_idf" else "int64"
        return run_numpy(self._encode, inputs, dtype, shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config["output_mode"] = self.output_mode  # a deprecated name given: the current one
        config["vocabulary"] = [self._to_output_config(t) for t in self._tokens] or None
        config["idf_weights"] = (None if self._idf is None
                                 else self._idf[self._start():].tolist())
        # None for a layer without a vocabulary yet, as Keras's
        config["vocabulary_size"] = (None if config["vocabulary"] is None
                                     else self.vocabulary_size())
        config["oov_method"] = self.oov_method
        return config

    @classmethod
    def from_config(cls, config: dict) -> "Layer":
        config = dict(config)
        config.pop("vocabulary_size", None)
        return super().from_config(config)

    def _to_output_config(self, token):
        return token


def _text(token) -> str:
    return token.decode("utf-8") if isinstance(token, bytes) else str(token)


def _oov_method(value, layer: str) -> str:
    if value not in ("floormod", "farmhash"):
        raise ValueError(f"{layer}: `oov_method` must be 'floormod' or 'farmhash', got "
                         f"oov_method={value!r}.")
    return value


def _refuse_salt(salt, layer: str) -> None:
    if salt is not None:
        raise NotImplementedError(f"{layer}(salt=...) hashes OOV values with TensorFlow's keyed "
                                  "SipHash, which is not implemented here; use salt=None.")


class StringLookup(_IndexLookup):
    """Strings to integer ids (or back with `invert=True`) by a vocabulary given or learned
    with `adapt`; `output_mode` int (int64), one_hot, multi_hot, count or tf_idf. Unknown
    strings take the OOV id(s) after the mask token's 0. The vocabulary is kept in the
    layer's config, so it is saved with the model."""

    def __init__(self, max_tokens=None, num_oov_indices: int = 1, mask_token=None,
                 oov_token: str = "[UNK]", vocabulary=None, idf_weights=None,
                 invert: bool = False, output_mode: str = "int", pad_to_max_tokens: bool = False,
                 sparse: bool = False, encoding: str = "utf-8", salt=None,
                 oov_method: str = "floormod", **kwargs: Any) -> None:
        # strings always take FarmHash OOV slots (Keras: `oov_method` applies to integers)
        self.oov_method = _oov_method(oov_method, "StringLookup")
        _refuse_salt(salt, "StringLookup")
        self.salt = None
        if encoding != "utf-8":
            raise NotImplementedError(f"StringLookup: only encoding='utf-8' is implemented, got "
                                      f"encoding={encoding!r}.")
        self.encoding = encoding
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         idf_weights, invert, output_mode, pad_to_max_tokens, sparse, **kwargs)

    def _key(self, token):
        return _text(token)

    def _to_output(self, token):
        return _text(token).encode("utf-8")

    def _inverse_dtype(self):
        return "string"

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        return [_text(t) for t in super().get_vocabulary(include_special_tokens)]


class IntegerLookup(_IndexLookup):
    """Integers to ids by a vocabulary (as StringLookup does for strings); the OOV token is
    -1, the mask token (None by default) maps to 0; with several OOV slots an unknown value
    takes slot `value mod num_oov_indices`, as Keras does for integers."""

    _strings = False

    def __init__(self, max_tokens=None, num_oov_indices: int = 1, mask_token=None,
                 oov_token: int = -1, vocabulary=None, vocabulary_dtype: str = "int64",
                 idf_weights=None, invert: bool = False, output_mode: str = "int",
                 sparse: bool = False, pad_to_max_tokens: bool = False,
                 oov_method: str = "floormod", salt=None, **kwargs: Any) -> None:
        self.oov_method = _oov_method(oov_method, "IntegerLookup")
        _refuse_salt(salt, "IntegerLookup")
        self.salt = None
        if vocabulary_dtype not in ("int64", "int32"):
            raise ValueError(f"IntegerLookup: `vocabulary_dtype` must be 'int64' or 'int32', "
                             f"got vocabulary_dtype={vocabulary_dtype!r}.")
        self.vocabulary_dtype = vocabulary_dtype
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         idf_weights, invert, output_mode, pad_to_max_tokens, sparse, **kwargs)

    def _key(self, token):
        return int(token)

    def _from_text(self, line: str):
        return int(line)

    def _oov_slot(self, key) -> int:
        if self.oov_method == "farmhash":  # the decimal text's FarmHash, as Keras
            return fingerprint64(str(int(key)).encode()) % self.num_oov_indices
        return int(key) % self.num_oov_indices

    def _inverse_dtype(self):
        return self.vocabulary_dtype

    def _inverse_array(self, out: np.ndarray) -> np.ndarray:
        return out.astype(self.vocabulary_dtype)

    def _to_output_config(self, token):
        return int(token)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        return [int(t) for t in super().get_vocabulary(include_special_tokens)]


# -- TextVectorization ---------------------------------------------------------------------
_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")


def _standardize(text: str, how) -> str:
    if how in ("lower", "lower_and_strip_punctuation"):
        text = text.lower()
    if how in ("strip_punctuation", "lower_and_strip_punctuation"):
        text = _PUNCTUATION.sub("", text)
    return text


def _ngrams(tokens: list, ngrams) -> list:
    if ngrams is None:
        return tokens
    sizes = range(1, ngrams + 1) if isinstance(ngrams, int) else ngrams
    out: list = []
    for n in sizes:
        out += [" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    return out


class TextVectorization(Layer):
    """Strings to token ids (`output_mode="int"`, int64, padded with 0 to the longest row
    or to `output_sequence_length`) or to multi_hot / count (int64) / tf_idf (float32)
    vectors over a vocabulary learned with `adapt` or given. Standardizes (lowercase and
    strip punctuation by default), splits (on whitespace by default), and makes ngrams.
    `standardize` and `split` may be callables on a string tensor (run eagerly on the batch
    here)."""

    _convert_input_args = False  # strings are taken as given (Keras does not cast them)

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode: str = "int",
                 output_sequence_length=None, pad_to_max_tokens: bool = False,
                 vocabulary=None, idf_weights=None, sparse: bool = False, ragged: bool = False,
                 encoding: str = "utf-8", **kwargs: Any) -> None:
        kwargs.pop("vocabulary_size", None)
        super().__init__(**kwargs)
        output_mode = _check_mode(output_mode, "TextVectorization",
                                  ("int", "multi_hot", "count", "tf_idf"), tuple(_OLD_MODES))
        if not (standardize is None or callable(standardize) or standardize in _STANDARDIZE):
            raise ValueError(f"TextVectorization: `standardize` must be one of {_STANDARDIZE}, "
                             f"None or a callable, got standardize={standardize!r}.")
        if not (split is None or callable(split) or split in _SPLIT):
            raise ValueError(f"TextVectorization: `split` must be one of {_SPLIT}, None or a "
                             f"callable, got split={split!r}.")
        if ngrams is not None and not (isinstance(ngrams, int) and ngrams > 0 or
                                       isinstance(ngrams, (tuple, list))):
            raise ValueError(f"TextVectorization: `ngrams` must be None, a positive int or a "
                             f"tuple of ints, got ngrams={ngrams!r}.")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError("TextVectorization: `output_sequence_length` is only used with "
                             f"output_mode='int', got output_mode={output_mode!r}.")
        if ragged or sparse:
            raise NotImplementedError("TextVectorization(ragged=True / sparse=True) is not "
                                      "implemented here.")
        self.max_tokens, self.standardize, self.split = max_tokens, standardize, split
        self.ngrams = tuple(ngrams) if isinstance(ngrams, list) else ngrams
        self.output_mode, self.output_sequence_length = output_mode, output_sequence_length
        self.pad_to_max_tokens, self.encoding = pad_to_max_tokens, encoding
        self.sparse = self.ragged = False
        self._lookup = StringLookup(
            max_tokens=max_tokens, mask_token="" if output_mode == "int" else None,
            output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens,
            vocabulary=vocabulary, idf_weights=idf_weights, name=f"{self.name}_lookup")

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The vocabulary ("" and "[UNK]" first in int mode, "[UNK]" first otherwise)."""
        return self._lookup.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self._lookup.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        self._lookup.set_vocabulary(vocabulary, idf_weights)

    def _tokens(self, texts) -> list:
        """Token lists of a batch of strings (rank 0, 1, or (n, 1))."""
        array = texts if isinstance(texts, np.ndarray) else as_numpy(texts)
        if array.ndim == 2 and array.shape[1] == 1:
            array = array[:, 0]
        if array.ndim > 1:
            raise ValueError(f"{self.name}: inputs must be strings of shape (batch,) or "
                             f"(batch, 1), got shape {array.shape}.")
        strings = [_text(t) for t in np.atleast_1d(array).tolist()]
        if callable(self.standardize):
            strings = [_text(t) for t in as_numpy(self.standardize(_as_tensor(strings)))
                       .ravel().tolist()]
        elif self.standardize is not None:
            strings = [_standardize(s, self.standardize) for s in strings]
        if callable(self.split):
            pieces = self.split(_as_tensor(strings))
            rows = [[_text(t) for t in row] for row in
                    (pieces.to_list() if hasattr(pieces, "to_list") else as_numpy(pieces)
                     .tolist())]
        elif self.split == "whitespace":
            rows = [s.split() for s in strings]
        elif self.split == "character":
            rows = [list(s) for s in strings]
        else:
            rows = [[s] for s in strings]
        return [_ngrams(row, self.ngrams) for row in rows]

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learns the vocabulary (and the idf weights with tf_idf) from strings: an array,
        a list, a tensor or a dataset of strings or of string batches."""
        self._lookup.adapt(self._token_batches(data))

    def _token_batches(self, data):
        for batch in adapt_batches(data, "TextVectorization"):
            yield TokenRows(self._tokens(batch))

    def _vectorize(self, texts: np.ndarray) -> np.ndarray:
        scalar = np.ndim(texts) == 0
        rows = self._tokens(texts)
        if self.output_mode == "int":
            ids = [self._lookup._lookup(np.asarray(row, dtype=object)).tolist() for row in rows]
            width = self.output_sequence_length
            if width is None:
                width = max((len(r) for r in ids), default=0)
            out = np.zeros((len(ids), width), np.int64)
            for i, row in enumerate(ids):
                out[i, :min(len(row), width)] = row[:width]
        else:
            out = np.stack([self._lookup._encode(np.asarray(row, dtype=object)
                                                 if row else np.zeros((0,), object))
                            for row in rows]) if rows else np.zeros((0, self._depth()))
            out = out.astype(np.float32 if self.output_mode == "tf_idf" else np.int64)
        return out[0] if scalar else out

    def _depth(self) -> int:
        return self._lookup._depth()

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        rank = inputs.shape.rank
        batch = [] if rank == 0 else ([inputs.shape.as_list()[0]] if rank else [None])
        width = self.output_sequence_length if self.output_mode == "int" else self._depth()
        dtype = "float32" if self.output_mode == "tf_idf" else "int64"
        return run_numpy(self._vectorize, inputs, dtype, batch + [width])

    def compute_output_shape(self, input_shape):
        width = self.output_sequence_length if self.output_mode == "int" else self._depth()
        return (tuple(input_shape)[0], width)

    def get_config(self) -> dict:
        config = super().get_config()
        config["output_mode"] = self.output_mode  # a deprecated name given: the current one
        config["vocabulary"] = self._lookup.get_vocabulary(False) or None
        config["idf_weights"] = (None if self._lookup._idf is None else
                                 self._lookup._idf[self._lookup._start():].tolist())
        config["vocabulary_size"] = self.vocabulary_size()
        return config


def _as_tensor(strings: list):
    return convert_to_tensor(np.asarray([s.encode("utf-8") for s in strings], dtype=object))
