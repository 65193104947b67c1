"""load_model(safe_mode=True), the default, on files we did not write: a config may name only
functions that compute tensors (an allow-list, checked here against the ops they stage and
their OpDef effects) and known classes; anything else, and every damaged or hostile config,
is refused with a ValueError when the file is read, and nothing is run or written."""

import contextlib
import copy
import io
import json
import os
import random
import struct
import sys
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import context, keras
from runtime.exports import LAZY_NAMES, NAMESPACES
from runtime.graph import FuncGraph
from runtime.layers import function_source
from runtime.opdef import Effect
from runtime.ops import load_all
from runtime.shapes import TensorShape

# -- watching for writes -------------------------------------------------------------------

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_EFFECT_EVENTS = frozenset({"os.system", "subprocess.Popen", "os.remove", "os.rename",
                            "os.mkdir", "os.exec", "os.spawn", "os.posix_spawn",
                            "shutil.rmtree", "os.truncate", "pickle.find_class"})
_watch = {"on": False, "seen": []}


def _audit(event, args):
    if not _watch["on"]:
        return
    if event == "open" and len(args) == 3:
        path, mode, flags = args
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
            (isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writing and not str(path).endswith(".pyc"):
            _watch["seen"].append((event, path))
    elif event in _EFFECT_EVENTS:
        _watch["seen"].append((event, args[:1]))


sys.addaudithook(_audit)


@contextlib.contextmanager
def nothing_written(directory):
    """Fails when the block opens a file for writing, runs a command or removes a file, or
    when `directory` holds other files afterwards."""
    before = sorted(os.listdir(directory))
    _watch["seen"] = []
    _watch["on"] = True
    try:
        yield
    finally:
        _watch["on"] = False
    assert _watch["seen"] == []
    assert sorted(os.listdir(directory)) == before


# -- files ---------------------------------------------------------------------------------

def _saved(tmp_path):
    """The description and weights of a small saved Sequential model (Input(3), Dense(2))."""
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2, name="dense")])
    model.save(str(tmp_path / "good.keras"))
    with zipfile.ZipFile(tmp_path / "good.keras") as archive:
        description = json.loads(archive.read("model.json"))
        weights = archive.read("model.weights.npz")
    os.remove(tmp_path / "good.keras")
    return description, weights


def _write(directory, description, weights, name="hostile.keras"):
    path = os.path.join(directory, name)
    text = description if isinstance(description, (str, bytes)) else json.dumps(description)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model.json", text)
        archive.writestr("model.weights.npz", weights)
    return path


def _with_layer(description, layer):
    description = copy.deepcopy(description)
    description["model"]["config"]["layers"].append(layer)
    return description


def _function(name):
    return {"class_name": "function", "config": f"runtime>{name}"}


def _lambda_layer(function, arguments=None):
    return {"class_name": "Lambda", "config": {"name": "hostile", "function": function,
                                               "arguments": arguments or {}}}


def _npz(**arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


# -- the attack of the report ----------------------------------------------------------------

def test_a_model_naming_write_file_is_refused_at_load_and_writes_nothing(tmp_path):
    description, weights = _saved(tmp_path)
    target = tmp_path / "owned.txt"
    path_maker = _lambda_layer(_function("strings.regex_replace"),
                               {"pattern": ".*", "rewrite": str(target)})
    writer = _lambda_layer(_function("io.write_file"), {"contents": "attacker's bytes"})
    hostile = _with_layer(_with_layer(description, path_maker), writer)
    path = _write(tmp_path, hostile, weights)
    with nothing_written(tmp_path), pytest.raises(ValueError) as caught:
        keras.models.load_model(path)
    message = str(caught.value)
    assert "rt.strings.regex_replace" in message or "rt.io.write_file" in message
    assert "safe_mode=False" in message
    assert not target.exists()
    writer_only = _write(tmp_path, _with_layer(description, writer), weights, "writer.keras")
    with nothing_written(tmp_path), pytest.raises(ValueError, match=r"rt\.io\.write_file"):
        keras.models.load_model(writer_only)


@pytest.mark.parametrize("name", [
    "io.write_file", "io.read_file", "print", "py_function", "numpy_function",
    "random.set_seed", "random.set_global_generator", "debugging.enable_check_numerics",
    "debugging.assert_equal", "config.run_functions_eagerly", "map_fn", "while_loop", "cond",
    "vectorized_map", "strings.regex_replace", "Variable", "summary.scalar", "no.such_function",
    "", "os.system"])
def test_functions_outside_the_allow_list_are_refused_naming_them(tmp_path, name):
    description, weights = _saved(tmp_path)
    path = _write(tmp_path, _with_layer(description, _lambda_layer(_function(name))), weights)
    with nothing_written(tmp_path), pytest.raises(ValueError) as caught:
        keras.models.load_model(path)
    assert repr(f"runtime>{name}") in str(caught.value)


def test_safe_mode_false_opts_out_for_a_file_you_trust(tmp_path):
    description, weights = _saved(tmp_path)
    checked = _lambda_layer(_function("debugging.check_numerics"), {"message": "bad input"})
    path = _write(tmp_path, _with_layer(description, checked), weights)
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.models.load_model(path)
    model = keras.models.load_model(path, safe_mode=False)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(model.predict(x, verbose=0), x @ kernel + bias, rtol=1e-6)


def test_a_model_made_of_allowed_functions_loads_and_computes_in_safe_mode(tmp_path):
    model = keras.Sequential([
        keras.Input(shape=(4,)),
        keras.layers.Dense(3, kernel_initializer=rt.random.normal),
        keras.layers.Lambda(rt.math.square),
        keras.layers.Lambda(rt.reduce_sum, arguments={"axis": 1, "keepdims": True}),
        keras.layers.Activation(rt.nn.softplus)])
    path = str(tmp_path / "pure.keras")
    model.save(path)
    with nothing_written(tmp_path):
        loaded = keras.models.load_model(path)
        x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
        got = loaded.predict(x, verbose=0)
    kernel, bias = (w.astype(np.float64) for w in loaded.get_weights())
    expected = np.log1p(np.exp(((x @ kernel + bias) ** 2).sum(axis=1, keepdims=True)))
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert loaded.layers[0].kernel_initializer is rt.random.normal


# -- the allow-list against the OpDefs' effects ----------------------------------------------

def _placeholders(graph):
    def p(shape, dtype=rt.float32):
        return graph.placeholder(TensorShape(shape), dtype, name="p")
    return p


# Arguments for the allowed functions the generic candidates below do not fit.
_SPECIFIC = {
    "banded_triangular_solve": lambda p: (p([2, 3]), p([3, 2])),
    "eigh_tridiagonal": lambda p: (p([3]), p([2])),
    "logm": lambda p: (p([3, 3], rt.complex64),),
    "lu_matrix_inverse": lambda p: (p([3, 3]), p([3], rt.int32)),
    "lu_reconstruct": lambda p: (p([3, 3]), p([3], rt.int32)),
    "lu_solve": lambda p: (p([3, 3]), p([3], rt.int32), p([3, 2])),
    "tridiagonal_matmul": lambda p: (p([3, 3]), p([3, 2])),
    "tridiagonal_solve": lambda p: (p([3, 3]), p([3, 2])),
    "depthwise_conv2d_backprop_filter": lambda p: (p([1, 4, 4, 2]), [2, 2, 2, 1],
                                                   p([1, 3, 3, 2]), [1, 1, 1, 1], "VALID"),
    "depthwise_conv2d_backprop_input": lambda p: ([1, 4, 4, 2], p([2, 2, 2, 1]),
                                                  p([1, 3, 3, 2]), [1, 1, 1, 1], "VALID"),
    "inverse_mdct": lambda p: (p([3, 4]),),
    "inverse_stft": lambda p: (p([3, 5], rt.complex64), 8, 4),
    "inverse_stft_window_fn": lambda p: (4,),
    "linear_to_mel_weight_matrix": lambda p: (),
    "mdct": lambda p: (p([16]), 8),
    "cast": lambda p: (p([2, 3]), rt.int32),
    "saturate_cast": lambda p: (p([2, 3]), rt.int32),
    "clip_by_global_norm": lambda p: ([p([2, 3])], 1.0),
    "clip_by_value": lambda p: (p([2, 3]), 0.0, 1.0),
    "concat": lambda p: ([p([2, 3]), p([2, 3])], 0),
    "einsum": lambda p: ("ij->ji", p([2, 3])),
    "ensure_shape": lambda p: (p([2, 3]), [2, 3]),
    "psnr": lambda p: (p([1, 4, 4, 3]), p([1, 4, 4, 3]), 1.0),
    "non_max_suppression": lambda p: (p([4, 4]), p([4]), 2),
    "non_max_suppression_with_scores": lambda p: (p([4, 4]), p([4]), 2),
    "non_max_suppression_padded": lambda p: (p([4, 4]), p([4]), 2),
    "non_max_suppression_overlaps": lambda p: (p([4, 4]), p([4]), 2),
    "combined_non_max_suppression": lambda p: (p([1, 4, 1, 4]), p([1, 4, 3]), 2, 3),
    "conv3d": lambda p: (p([1, 4, 4, 4, 2]), p([2, 2, 2, 2, 3]), 1, "SAME"),
    "uniform_candidate_sampler": lambda p: (p([2, 1], rt.int64), 1, 2, True, 5),
    "log_uniform_candidate_sampler": lambda p: (p([2, 1], rt.int64), 1, 2, True, 5),
    "learned_unigram_candidate_sampler": lambda p: (p([2, 1], rt.int64), 1, 2, True, 5),
    "fixed_unigram_candidate_sampler": lambda p: (p([2, 1], rt.int64), 1, 2, True, 3, "", 1.0, 0,
                                                  1, 0, [1, 2, 3]),
    "all_candidate_sampler": lambda p: (p([2, 1], rt.int64), 1, 2, True),
    "compute_accidental_hits": lambda p: (p([2, 1], rt.int64), p([2], rt.int64), 1),
    "nce_loss": lambda p: (p([5, 3]), p([5]), p([2, 1], rt.int64), p([2, 3]), 2, 5),
    "sampled_softmax_loss": lambda p: (p([5, 3]), p([5]), p([2, 1], rt.int64), p([2, 3]), 2, 5),
    "embedding_lookup_sparse": lambda p: (p([5, 2]), rt.sparse.SparseTensor(
        p([3, 2], rt.int64), p([3], rt.int64), [2, 4]), None),
    "safe_embedding_lookup_sparse": lambda p: (p([5, 2]), rt.sparse.SparseTensor(
        p([3, 2], rt.int64), p([3], rt.int64), [2, 4])),
    "max_pool_with_argmax": lambda p: (p([1, 4, 4, 2]), 2, 2, "SAME"),
    "dilation2d": lambda p: (p([1, 4, 4, 2]), p([2, 2, 2]), [1, 1, 1, 1], "SAME", "NHWC",
                             [1, 1, 1, 1]),
    "erosion2d": lambda p: (p([1, 4, 4, 2]), p([2, 2, 2]), [1, 1, 1, 1], "SAME", "NHWC",
                            [1, 1, 1, 1]),
    "with_space_to_batch": lambda p: (p([1, 4, 4, 2]), [2, 2], "VALID", lambda i, n, pad: i),
    "atrous_conv2d_transpose": lambda p: (p([1, 4, 4, 2]), p([2, 2, 3, 2]), [1, 4, 4, 3], 2,
                                          "SAME"),
    "ctc_loss": lambda p: (p([2, 3], rt.int32), p([4, 2, 5]), p([2], rt.int32), p([2], rt.int32)),
    "ctc_greedy_decoder": lambda p: (p([4, 2, 5]), p([2], rt.int32)),
    "ctc_beam_search_decoder": lambda p: (p([4, 2, 5]), p([2], rt.int32)),
    "ctc_unique_labels": lambda p: (p([2, 3], rt.int32),),
    "conv3d_transpose": lambda p: (p([1, 2, 2, 2, 3]), p([2, 2, 2, 2, 3]), [1, 4, 4, 4, 2], 2),
    "max_pool3d": lambda p: (p([1, 4, 4, 4, 2]), 2, 2, "SAME"),
    "avg_pool3d": lambda p: (p([1, 4, 4, 4, 2]), 2, 2, "SAME"),
    "betainc": lambda p: (p([2, 3]), p([2, 3]), p([2, 3])),
    "crop_and_resize": lambda p: (p([1, 4, 4, 3]), p([2, 4]), p([2], rt.int32), [2, 2]),
    "extract_patches": lambda p: (p([1, 4, 4, 3]), [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                  "VALID"),
    "draw_bounding_boxes": lambda p: (p([1, 4, 4, 3]), p([1, 2, 4]), p([2, 4])),
    "sample_distorted_bounding_box": lambda p: ([4, 4, 3], p([1, 2, 4])),
    "stateless_sample_distorted_bounding_box": lambda p: ([4, 4, 3], p([1, 2, 4]), [1, 2]),
    "extract_glimpse": lambda p: (p([1, 4, 4, 3]), [2, 2], p([1, 2])),
    "ssim": lambda p: (p([1, 12, 12, 3]), p([1, 12, 12, 3]), 1.0),
    "ssim_multiscale": lambda p: (p([1, 176, 176, 1]), p([1, 176, 176, 1]), 1.0),
    "in_top_k": lambda p: (p([2], rt.int32), p([2, 3]), 1),
    "unsorted_segment_mean": lambda p: (p([2, 3]), p([2], rt.int32), 2),
    "unsorted_segment_sqrt_n": lambda p: (p([2, 3]), p([2], rt.int32), 2),
    "batch_norm_with_global_normalization":
        lambda p: (p([2, 3]), p([3]), p([3]), p([3]), p([3]), 0.001, True),
    "depth_to_space": lambda p: (p([1, 2, 2, 4]), 2),
    "space_to_depth": lambda p: (p([1, 4, 4, 3]), 2),
    "pool": lambda p: (p([1, 4, 4, 3]), [2, 2], "MAX"),
    "space_to_batch": lambda p: (p([1, 4, 4, 3]), [2, 2], [[0, 0], [0, 0]]),
    "space_to_batch_nd": lambda p: (p([1, 4, 4, 3]), [2, 2], [[0, 0], [0, 0]]),
    "weighted_moments": lambda p: (p([2, 3]), [0], p([2, 3])),
    "kaiser_window": lambda p: (4,),
    "kaiser_bessel_derived_window": lambda p: (4,),
    "vorbis_window": lambda p: (4,),
    "fill": lambda p: ([2, 3], p([])),
    "adjust_brightness": lambda p: (p([1, 4, 4, 3]), 0.1),
    "adjust_contrast": lambda p: (p([1, 4, 4, 3]), 0.5),
    "adjust_saturation": lambda p: (p([1, 4, 4, 3]), 0.5),
    "central_crop": lambda p: (p([1, 4, 4, 3]), 0.5),
    "convert_image_dtype": lambda p: (p([1, 4, 4, 3]), rt.float64),
    "crop_to_bounding_box": lambda p: (p([1, 4, 4, 3]), 0, 0, 2, 2),
    "pad_to_bounding_box": lambda p: (p([1, 4, 4, 3]), 0, 0, 5, 5),
    "grayscale_to_rgb": lambda p: (p([1, 4, 4, 1]),),
    "resize": lambda p: (p([1, 4, 4, 3]), [2, 2]),
    "resize_with_crop_or_pad": lambda p: (p([1, 4, 4, 3]), 2, 2),
    "lin_space": lambda p: (p([]), p([]), 5),
    "linspace": lambda p: (p([]), p([]), 5),
    "band_part": lambda p: (p([3, 3]), 1, 1),
    "cholesky_solve": lambda p: (p([3, 3]), p([3, 2])),
    "global_norm": lambda p: ([p([2, 3])],),
    "matmul": lambda p: (p([2, 3]), p([3, 2])),
    "solve": lambda p: (p([3, 3]), p([3, 2])),
    "tensordot": lambda p: (p([2, 3]), p([3, 2]), 1),
    "triangular_solve": lambda p: (p([3, 3]), p([3, 2])),
    "logical_and": lambda p: (p([2], rt.bool_), p([2], rt.bool_)),
    "logical_or": lambda p: (p([2], rt.bool_), p([2], rt.bool_)),
    "logical_xor": lambda p: (p([2], rt.bool_), p([2], rt.bool_)),
    "confusion_matrix": lambda p: (p([4], rt.int32), p([4], rt.int32), 3),
    "invert_permutation": lambda p: (p([4], rt.int32),),
    "polyval": lambda p: ([p([2]), p([2])], p([2])),
    "scalar_mul": lambda p: (2.0, p([2, 3])),
    "unsorted_segment_max": lambda p: (p([2, 3]), p([2], rt.int32), 2),
    "unsorted_segment_min": lambda p: (p([2, 3]), p([2], rt.int32), 2),
    "unsorted_segment_prod": lambda p: (p([2, 3]), p([2], rt.int32), 2),
    "unsorted_segment_sum": lambda p: (p([2, 3]), p([2], rt.int32), 2),
    "avg_pool": lambda p: (p([1, 4, 4, 3]), 2, 2, "VALID"),
    "avg_pool1d": lambda p: (p([1, 4, 3]), 2, 2, "VALID"),
    "avg_pool2d": lambda p: (p([1, 4, 4, 3]), 2, 2, "VALID"),
    "max_pool": lambda p: (p([1, 4, 4, 3]), 2, 2, "VALID"),
    "max_pool1d": lambda p: (p([1, 4, 3]), 2, 2, "VALID"),
    "max_pool2d": lambda p: (p([1, 4, 4, 3]), 2, 2, "VALID"),
    "batch_normalization": lambda p: (p([2, 3]), p([3]), p([3]), p([3]), p([3]), 1e-3),
    "conv1d": lambda p: (p([1, 4, 3]), p([2, 3, 2]), 1, "VALID"),
    "conv2d": lambda p: (p([1, 4, 4, 3]), p([2, 2, 3, 2]), 1, "VALID"),
    "atrous_conv2d": lambda p: (p([1, 6, 6, 3]), p([2, 2, 3, 2]), 2, "VALID"),
    "conv1d_transpose": lambda p: (p([1, 4, 2]), p([2, 3, 2]), [1, 8, 3], 2),
    "conv2d_transpose": lambda p: (p([1, 4, 4, 2]), p([2, 2, 3, 2]), [1, 8, 8, 3], 2),
    "conv_transpose": lambda p: (p([1, 4, 4, 2]), p([2, 2, 3, 2]), [1, 8, 8, 3], 2),
    "convolution": lambda p: (p([1, 4, 4, 3]), p([2, 2, 3, 2])),
    "depthwise_conv2d": lambda p: (p([1, 4, 4, 3]), p([2, 2, 3, 1]), [1, 1, 1, 1], "VALID"),
    "separable_conv2d": lambda p: (p([1, 4, 4, 3]), p([2, 2, 3, 1]), p([1, 1, 3, 2]),
                                   [1, 1, 1, 1], "VALID"),
    "dropout": lambda p: (p([2, 3]), 0.5),
    "normalize_moments": lambda p: (p([]), p([3]), p([3]), None),
    "sparse_softmax_cross_entropy_with_logits": lambda p: (p([2], rt.int32), p([2, 3])),
    "weighted_cross_entropy_with_logits": lambda p: (p([2, 3]), p([2, 3]), 2.0),
    "pad": lambda p: (p([2, 3]), [[1, 1], [1, 1]]),
    "stateless_normal": lambda p: ([2, 3], p([2], rt.int32)),
    "stateless_truncated_normal": lambda p: ([2, 3], p([2], rt.int32)),
    "stateless_uniform": lambda p: ([2, 3], p([2], rt.int32)),
    "reverse_sequence": lambda p: (p([2, 3]), p([2], rt.int32), 1, 0),
    "resize_with_pad": lambda p: (p([1, 4, 4, 3]), 6, 6),
    "fractional_avg_pool": lambda p: (p([1, 5, 7, 3]), [1, 1.5, 2.0, 1]),
    "fractional_max_pool": lambda p: (p([1, 5, 7, 3]), [1, 1.5, 2.0, 1]),
    "random_brightness": lambda p: (p([4, 4, 3]), 0.2),
    "stateless_random_brightness": lambda p: (p([4, 4, 3]), 0.2, [1, 2]),
    "random_contrast": lambda p: (p([4, 4, 3]), 0.2, 0.5),
    "stateless_random_contrast": lambda p: (p([4, 4, 3]), 0.2, 0.5, [1, 2]),
    "adjust_hue": lambda p: (p([1, 4, 4, 3]), 0.2),
    "random_hue": lambda p: (p([4, 4, 3]), 0.2),
    "stateless_random_hue": lambda p: (p([4, 4, 3]), 0.2, [1, 2]),
    "random_saturation": lambda p: (p([4, 4, 3]), 0.2, 0.5),
    "stateless_random_saturation": lambda p: (p([4, 4, 3]), 0.2, 0.5, [1, 2]),
    "stateless_random_flip_left_right": lambda p: (p([2, 4, 4, 3]), [1, 2]),
    "stateless_random_flip_up_down": lambda p: (p([4, 4, 3]), [1, 2]),
    "stateless_random_crop": lambda p: (p([4, 4, 3]), [2, 2, 3], [1, 2]),
    "roll": lambda p: (p([2, 3]), 1, 0),
    "scatter_nd": lambda p: (p([2, 1], rt.int32), p([2, 3]), [4, 3]),
    "fft3d": lambda p: (p([2, 2, 2], rt.complex64),),
    "ifft3d": lambda p: (p([2, 2, 2], rt.complex64),),
    "irfft3d": lambda p: (p([2, 2, 3], rt.complex64),),
    "frame": lambda p: (p([8]), 4, 2),
    "hamming_window": lambda p: (5,),
    "hann_window": lambda p: (5,),
    "stft": lambda p: (p([16]), 8, 4),
    "slice": lambda p: (p([2, 3]), [0, 0], [1, 2]),
    "tensor_scatter_nd_add": lambda p: (p([2, 3]), p([1, 1], rt.int32), p([1, 3])),
    "tensor_scatter_nd_max": lambda p: (p([2, 3]), p([1, 1], rt.int32), p([1, 3])),
    "tensor_scatter_nd_min": lambda p: (p([2, 3]), p([1, 1], rt.int32), p([1, 3])),
    "tensor_scatter_nd_sub": lambda p: (p([2, 3]), p([1, 1], rt.int32), p([1, 3])),
    "tensor_scatter_nd_update": lambda p: (p([2, 3]), p([1, 1], rt.int32), p([1, 3])),
    "unravel_index": lambda p: (p([2], rt.int32), [2, 3]),
    # image codecs (rt.io and rt.image): a file's bytes in, an image out, and back
    "decode_and_crop_jpeg": lambda p: (p([], rt.string), [0, 0, 2, 2]),
    "decode_bmp": lambda p: (p([], rt.string),),
    "decode_gif": lambda p: (p([], rt.string),),
    "decode_image": lambda p: (p([], rt.string),),
    "decode_jpeg": lambda p: (p([], rt.string),),
    "decode_png": lambda p: (p([], rt.string),),
    "encode_jpeg": lambda p: (p([4, 4, 3], rt.uint8),),
    "encode_png": lambda p: (p([4, 4, 3], rt.uint8),),
    "extract_jpeg_shape": lambda p: (p([], rt.string),),
    "is_jpeg": lambda p: (p([], rt.string),),
}
_GENERIC = [
    lambda p: (p([2, 3]),), lambda p: (p([2, 3]), p([2, 3])), lambda p: (p([3, 3]),),
    lambda p: (p([2, 3], rt.int32),), lambda p: (p([2, 3], rt.bool_),),
    lambda p: (p([2, 3]), 1), lambda p: (p([2, 4], rt.complex64),),
    lambda p: (p([1, 4, 4, 3]),), lambda p: ([2, 3],), lambda p: (p([2, 3]), p([2], rt.int32)),
]


def _staged_effects(fn, name):
    """The effects of the ops `fn` stages on placeholders (None when no arguments fit)."""
    attempts = [_SPECIFIC[name]] if name in _SPECIFIC else _GENERIC
    for make in attempts:
        graph = FuncGraph("allow_list")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with context.graph_scope(graph):
                    fn(*make(_placeholders(graph)))
        except Exception:  # noqa: BLE001 (these arguments do not fit this function)
            continue
        effects = Effect.NONE
        for op in graph.operations:
            effects |= op.opdef.effects
        return effects
    return None


def _allowed():
    # every lazily loaded name first: the list must not depend on what earlier tests loaded
    for space, names in LAZY_NAMES.items():
        for name in names:
            NAMESPACES[space].get(name)  # loads its module and enters the name in the table
    load_all()
    return {(f"{space}.{name}" if space else name): fn
            for space, names in NAMESPACES.items() for name, fn in names.items()
            if function_source.is_pure(fn) and callable(fn)}  # not namespaces


def test_every_allowed_function_stages_only_ops_without_effects_but_random_draws():
    allowed = _allowed()
    assert len(allowed) > 250
    untraced, effectful = [], {}
    for full, fn in sorted(allowed.items()):
        effects = _staged_effects(fn, full.rpartition(".")[2])
        if effects is None:
            untraced.append(full)
        elif effects & ~Effect.RANDOM:
            effectful[full] = effects
    assert untraced == [] and effectful == {}


@pytest.mark.parametrize("name, make", [
    ("print", lambda p: (p([2]),)),
    ("io.write_file", lambda p: ("/nonexistent/never", p([], rt.string))),
    ("debugging.assert_equal", lambda p: (p([2]), p([2]))),
    ("debugging.check_numerics", lambda p: (p([2]), "m")),
])
def test_functions_whose_ops_have_effects_are_not_allowed(name, make):
    space, _, attr = name.rpartition(".")
    fn = NAMESPACES[space][attr]
    graph = FuncGraph("effects")
    with context.graph_scope(graph):
        fn(*make(_placeholders(graph)))
    staged = Effect.NONE
    for op in graph.operations:
        staged |= op.opdef.effects
    assert staged & (Effect.IO | Effect.WRITE)
    assert not function_source.is_pure(fn)


# -- hostile configs ---------------------------------------------------------------------------

def _dense(units, **extra):
    return {"class_name": "Dense", "config": {"units": units, **extra}}


def _nest_models(depth):
    layer = _dense(2)
    for _ in range(depth):
        layer = {"class_name": "Sequential", "config": {"layers": [layer]}}
    return layer


def _replace_model(description, model):
    description = copy.deepcopy(description)
    description["model"] = model
    return description


HOSTILE = {
    "unknown class": (lambda d: _with_layer(d, {"class_name": "Popen", "config": {}}),
                      "Unknown layer class 'Popen'"),
    "dotted class": (lambda d: _with_layer(d, {"class_name": "os.system", "config": {}}),
                     "Unknown layer class"),
    "module path": (lambda d: _with_layer(d, {"class_name": "Dense", "module": "subprocess",
                                              "config": {"units": 2}}), "module 'subprocess'"),
    "class name not a string": (lambda d: _with_layer(d, {"class_name": ["Dense"], "config": {}}),
                                "must be a string"),
    "registered name not a string": (
        lambda d: _with_layer(d, {"class_name": "Dense", "registered_name": {"a": 1},
                                  "config": {"units": 2}}), "must be a string"),
    "config not a dict": (lambda d: _with_layer(d, {"class_name": "Dense", "config": [1, 2]}),
                          "a dict 'config'"),
    "unknown nested class": (
        lambda d: _with_layer(d, _dense(2, kernel_initializer={"class_name": "Evil",
                                                               "config": {}})),
        "Unknown class 'Evil'"),
    "function nested in an initializer": (
        lambda d: _with_layer(d, _dense(2, kernel_initializer=_function("random.set_seed"))),
        r"rt\.random\.set_seed"),
    "function nested in Lambda arguments": (
        lambda d: _with_layer(d, _lambda_layer(_function("identity"),
                                               {"name": {"x": [_function("print")]}})),
        r"rt\.print"),
    "function inside a nested model": (
        lambda d: _with_layer(d, {"class_name": "Sequential", "config": {"layers": [
            _lambda_layer(_function("io.write_file"), {"contents": "x"})]}}),
        r"rt\.io\.write_file"),
    "function config not a string": (
        lambda d: _with_layer(d, _lambda_layer({"class_name": "function",
                                                "config": {"a": 1}})), "must be a str"),
    "lambda source": (
        lambda d: _with_layer(d, _lambda_layer({"class_name": "__lambda__", "config": {
            "source": "lambda x: __import__('os').system('touch owned')",
            "modules": {"os": "os"}}})), "safe_mode=False"),
    "huge kernel": (lambda d: _replace_model(d, {"class_name": "Sequential", "config": {
        "layers": [{"class_name": "InputLayer", "config": {"batch_shape": [None, 3]}},
                   _dense(10 ** 12)]}}), "Nothing was allocated"),
    "huge input": (lambda d: _replace_model(d, {"class_name": "Sequential", "config": {
        "layers": [{"class_name": "InputLayer", "config": {"batch_shape": [None, 10 ** 7]}},
                   _dense(10 ** 6)]}}), "Nothing was allocated"),
    "many small weights": (lambda d: _replace_model(d, {"class_name": "Sequential", "config": {
        "layers": [{"class_name": "InputLayer", "config": {"batch_shape": [None, 3]}}] +
        [_dense(2) for _ in range(200)]}}), "Nothing was allocated"),
    "huge embedding": (lambda d: _replace_model(d, {"class_name": "Sequential", "config": {
        "layers": [{"class_name": "InputLayer", "config": {"batch_shape": [None, 3]}},
                   {"class_name": "Embedding", "config": {"input_dim": 10 ** 9,
                                                          "output_dim": 10 ** 3}}]}}),
        "Nothing was allocated"),
    "deep json": (lambda d: '{"format": "runtime-keras", "model": ' + "[" * 100_000 +
                  "]" * 100_000 + "}", "nested too deeply"),
    "deep lists": (lambda d: _with_layer(d, json.loads("[" * 150 + "]" * 150)),
                   "more than 100 levels"),
    "deep models": (lambda d: _with_layer(d, _nest_models(60)), "more than 100 levels"),
    "not json": (lambda d: "{'format': 'runtime-keras'", "not valid JSON"),
    "not an object": (lambda d: "[1, 2]", "not a model description"),
    "other format": (lambda d: dict(d, format="keras"), "format"),
    "model not a dict": (lambda d: dict(d, model="Sequential"), "format"),
    "newer version": (lambda d: dict(d, version=99), "newer version"),
    "version not a number": (lambda d: dict(d, version="1"), "newer version"),
    "bad constructor arguments": (lambda d: _with_layer(d, _dense(2, kernel_size=[3])),
                                  "cannot be built"),
    "unknown optimizer": (lambda d: dict(d, compile={"loss": "mse", "metrics": [], "optimizer": {
        "class_name": "train", "config": {}}}), "unknown optimizer class 'train'"),
    "optimizer base class": (lambda d: dict(d, compile={"loss": "mse", "metrics": [],
                                                        "optimizer": {"class_name": "Optimizer",
                                                                      "config": {"x": 1}}}),
                             "optimizer"),
    "optimizer with a string learning rate": (
        lambda d: dict(d, compile={"loss": "mse", "metrics": [], "optimizer": {
            "class_name": "Adam", "config": {"learning_rate": "0.1"}}}), "learning_rate"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_configs_are_refused_with_a_clear_error_and_nothing_runs(tmp_path, case):
    description, weights = _saved(tmp_path)
    mutate, message = HOSTILE[case]
    path = _write(tmp_path, mutate(description), weights)
    with nothing_written(tmp_path), pytest.raises(ValueError, match=message):
        keras.models.load_model(path)


HOSTILE_WEIGHTS = {
    "not an npz": (b"plain bytes", "not a readable .npz"),
    "object array": (_npz(w00000=np.array([{"a": 1}], dtype=object)), "Python objects"),
    "header claims a huge array": (None, "claims shape"),
    "damaged header": (None, "damaged header"),
}


def _lying_npz(shape_text):
    good = io.BytesIO()
    np.lib.format.write_array(good, np.zeros((3, 2), np.float32))
    data = good.getvalue().replace(b"(3, 2)", shape_text, 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("w00000.npy", data)
    return buffer.getvalue()


@pytest.mark.parametrize("case", sorted(HOSTILE_WEIGHTS))
def test_hostile_weight_files_are_refused_before_loading_their_arrays(tmp_path, case):
    description, _ = _saved(tmp_path)
    weights, message = HOSTILE_WEIGHTS[case]
    if case == "header claims a huge array":
        weights = _lying_npz(b"(1000000, 1000000)")
    elif case == "damaged header":
        weights = _lying_npz(b"(3, -2)")
    path = _write(tmp_path, description, weights)
    with nothing_written(tmp_path), pytest.raises(ValueError, match=message):
        keras.models.load_model(path)


def _declaring(data, name, declared):
    """The zip archive `data` with member `name`'s uncompressed size changed to `declared` in
    both of its headers (the member itself is stored, not compressed)."""
    data = bytearray(data)
    local = data.index(b"PK\x03\x04")
    while True:
        name_length = struct.unpack_from("<H", data, local + 26)[0]
        if data[local + 30: local + 30 + name_length] == name.encode():
            break
        local = data.index(b"PK\x03\x04", local + 4)
    struct.pack_into("<I", data, local + 22, declared)
    central = data.index(b"PK\x01\x02")
    while True:
        name_length = struct.unpack_from("<H", data, central + 28)[0]
        if data[central + 46: central + 46 + name_length] == name.encode():
            break
        central = data.index(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", data, central + 24, declared)
    return bytes(data)


@pytest.mark.parametrize("member", ["model.json", "model.weights.npz"])
def test_an_archive_declaring_a_huge_member_is_refused_before_decompressing(tmp_path, member):
    description, weights = _saved(tmp_path)
    path = _write(tmp_path, description, weights)
    with open(path, "rb") as f:
        data = _declaring(f.read(), member, 2 ** 31)
    with open(path, "wb") as f:
        f.write(data)
    tracemalloc.start()
    try:
        with nothing_written(tmp_path), pytest.raises(ValueError, match="declares"):
            keras.models.load_model(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 26


def test_inner_weights_declaring_more_than_they_hold_are_refused(tmp_path):
    description, weights = _saved(tmp_path)
    lying = _declaring(weights, "w00000.npy", 2 ** 31)
    path = _write(tmp_path, description, lying)
    with nothing_written(tmp_path), pytest.raises(ValueError, match="zip bomb"):
        keras.models.load_model(path)


def test_a_legitimately_nested_model_still_loads(tmp_path):
    inner = keras.Sequential([keras.layers.Dense(2, name="innermost")])
    for depth in range(6):
        inner = keras.Sequential([inner], name=f"level{depth}")
    model = keras.Sequential([keras.Input(shape=(3,)), inner])
    model.save(str(tmp_path / "nested.keras"))
    loaded = keras.models.load_model(str(tmp_path / "nested.keras"))
    x = np.ones((1, 3), np.float32)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


# -- fuzzing: random values planted anywhere in a valid config -------------------------------

_PUBLIC = sorted((f"{space}.{name}" if space else name)
                 for space, names in NAMESPACES.items() for name in names)
_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 10 ** 13), st.floats(allow_nan=True),
    st.text(max_size=12), st.sampled_from(["Dense", "Lambda", "Sequential", "Evil", "os"]))
_planted = st.recursive(
    st.one_of(_leaf, st.sampled_from(_PUBLIC).map(_function),
              st.builds(lambda c: {"class_name": c, "config": {}},
                        st.sampled_from(["Dense", "Popen", "Lambda", "RandomNormal", "L2"]))),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["class_name", "config", "units",
                                                             "function", "module"]), inner,
                                            max_size=3)),
    max_leaves=8)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, prefix + (index,))


def _plant(description, path, value):
    description = copy.deepcopy(description)
    if not path:
        return value
    target = description
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return description


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_configs_load_or_raise_value_error_and_never_write(tmp_path, data):
    directory = tmp_path / f"case{len(os.listdir(tmp_path))}"
    directory.mkdir()
    description, weights = _saved(directory)
    paths = [p for p in _paths(description["model"], ("model",))]
    where = data.draw(st.sampled_from(paths))
    hostile = _plant(description, where, data.draw(_planted))
    path = _write(directory, hostile, weights)
    with nothing_written(directory):
        try:
            model = keras.models.load_model(path)
        except ValueError:
            return
        try:
            model.predict(np.ones((2, 3), np.float32), verbose=0)
        except Exception:  # noqa: BLE001 (a loaded model may not fit the data; it must not write)
            pass


def test_clone_model_trusts_the_models_own_functions_and_lambdas():
    model = keras.Sequential([
        keras.Input(shape=(3,)),
        keras.layers.Lambda(rt.debugging.check_numerics, arguments={"message": "bad"}),
        keras.layers.Lambda(lambda v: v * 2.0)])
    clone = keras.models.clone_model(model)
    assert clone.layers[0].function is rt.debugging.check_numerics
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(clone.predict(x, verbose=0), x * 2.0)


def test_a_lambda_closing_its_model_definition_is_saved_and_loads_when_trusted(tmp_path):
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Lambda(lambda v: v * 2.0)])
    model.save(str(tmp_path / "lambda.keras"))
    saved = json.loads(zipfile.ZipFile(tmp_path / "lambda.keras").read("model.json"))
    layer = saved["model"]["config"]["layers"][-1]["config"]
    assert layer["function"]["config"]["source"] == "lambda v: v * 2.0"
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.models.load_model(str(tmp_path / "lambda.keras"))
    loaded = keras.models.load_model(str(tmp_path / "lambda.keras"), safe_mode=False)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), x * 2.0)


def test_deserialize_keras_object_is_safe_by_default_as_in_keras():
    config = keras.saving.serialize_keras_object(rt.debugging.check_numerics)
    with pytest.raises(ValueError, match=r"rt\.debugging\.check_numerics.*safe_mode=False"):
        keras.saving.deserialize_keras_object(config)
    assert keras.saving.deserialize_keras_object(config, safe_mode=False) \
        is rt.debugging.check_numerics
    init = keras.saving.serialize_keras_object(keras.initializers.RandomNormal(stddev=2.0))
    assert keras.saving.deserialize_keras_object(init).stddev == 2.0
    with pytest.raises(TypeError, match="did you mean 'safe_mode'"):
        keras.saving.deserialize_keras_object(config, safemode=False)


def test_damaged_bytes_give_a_value_error_or_a_model_and_never_write(tmp_path):
    rng = random.Random(0)
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, activation="relu"),
                              keras.layers.Lambda(rt.math.square), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 1), np.float32), epochs=1, verbose=0)
    model.save(str(tmp_path / "good.keras"))
    original = (tmp_path / "good.keras").read_bytes()
    outcomes = set()
    for index in range(200):
        damaged = bytearray(original)
        for _ in range(rng.randint(1, 8)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        path = tmp_path / f"damaged{index}.keras"
        path.write_bytes(bytes(damaged))
        with nothing_written(tmp_path):
            try:
                keras.models.load_model(str(path))
                outcomes.add("loaded")
            except ValueError:
                outcomes.add("refused")
        path.unlink()
    assert "refused" in outcomes
