"""Writes docs/tf-coverage.md: which of TensorFlow's exported names `import runtime as tf` offers.

    python docs/make_tf_coverage.py          # rewrite the generated part of the page
    python docs/make_tf_coverage.py --check  # exit 1 when it is stale

TensorFlow's names come from docs/tf_api_names.txt (written once by docs/list_tf_api_names.py
with TensorFlow installed); each is looked up on this checkout's `runtime` and classed as
offered, offered with a documented difference, not meaningful here, or missing.
"""

from __future__ import annotations

import collections
import importlib
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's runtime, and generated_region

import generated_region  # noqa: E402

PAGE = HERE / "tf-coverage.md"
NAMES = HERE / "tf_api_names.txt"
SCRIPT = "make_tf_coverage.py"

OFFERED, DIFFERENT, NOT_MEANINGFUL, MISSING = (
    "offered", "offered, differences documented", "not meaningful here", "missing")

#: (pattern on the dotted name, reason): names that mean nothing on a NumPy CPU runtime
NOT_MEANINGFUL_RULES: tuple[tuple[str, str], ...] = (
    (r"tf\.compat\.v1(\.|$)", "TensorFlow 1 API (sessions, placeholders)"),
    (r"tf\.raw_ops(\.|$)", "TensorFlow's raw C++ kernels"),
    (r"tf\.lite(\.|$)", "TensorFlow Lite converter and interpreter"),
    (r"tf\.(tpu|dtensor)(\.|$)|.*tpu_|.*[._]tpu(\.|$)|.*\.TPU$", "TPU only"),
    (r"tf\.experimental\.tensorrt(\.|$)|tf\.saved_model\.GPU$", "GPU only"),
    (r"tf\.conv2d_backprop_(filter|input)_v2$",
     "GPU only (TensorFlow 2.21 registers these kernels for GPUs only: NotFoundError on a CPU)"),
    (r"tf\.(signal\.)?(fftnd|ifftnd|rfftnd|irfftnd)$",
     "GPU only (TensorFlow 2.21 registers these kernels for GPUs only: NotFoundError on a CPU)"),
    (r"tf\.config\.experimental\.(get_memory_growth|set_memory_growth|get_memory_info|"
     r"get_memory_usage|reset_memory_stats|enable_tensor_float_32_execution|"
     r"tensor_float_32_execution_enabled)$", "GPU only (accelerator memory, TF32)"),
    (r"tf\.(mlir|sysconfig)(\.|$)|tf\.config\.experimental\.(enable|disable)_mlir_bridge$",
     "TensorFlow's C++ build and compiler internals"),
    (r"tf\.(load_library|load_op_library)$|tf\.experimental\.register_filesystem_plugin$",
     "loads compiled TensorFlow C++ plugins"),
    (r"tf\.data\.experimental\.get_model_proto$",
     "TensorFlow's C++ internals (the protocol buffer of tf.data's autotuning model)"),
    (r"tf\.data\.experimental\.make_saveable_from_iterator$",
     "TensorFlow 1 API (a SaveableObject for tf.compat.v1.train.Saver)"),
)

_USERS = "tensorflow-users.md#what-behaves-differently"

#: (pattern on the dotted name, difference): offered names whose behaviour differs, as stated
#: in docs/tensorflow-users.md
DIFFERENCES: tuple[tuple[str, str], ...] = (
    (r"tf\.keras\.layers\.(Random\w+|AugMix|RandAugment|MixUp|CutMix|Solarization)$",
     "training draws differ from Keras's (the layer's NumPy generator); no bounding boxes or "
     "segmentation masks"),
    (r"tf\.keras\.layers\.MelSpectrogram$", "computed in NumPy: no gradient"),
    (r"tf\.keras\.utils\.bounding_boxes\.\w+$", "computed eagerly in NumPy: not in a traced "
     "function"),
    (r"tf\.keras\.visualization\.draw_bounding_boxes$",
     "without OpenCV the outlines are drawn in NumPy and class labels raise ImportError"),
    (r"tf\.random\.experimental\.index_shuffle$",
     "at most 2**24 indices; not TensorFlow's permutation"),
    (r"tf\.nn\.experimental\.stateless_dropout$",
     "numbers drawn differ from TensorFlow's (Philox streams)"),
    (r"tf\.recompute_grad$", "same values and gradients, but no memory saved"),
    (r"tf\.linalg\.set_diag$", "the main diagonal only (k=0)"),
    (r"tf\.keras\.config\.set_floatx$", "float32 only"),
    (r"tf\.keras\.config\.set_backend$", "'tensorflow' only"),
    (r"tf\.keras\.(config\.set_dtype_policy|mixed_precision\.(set_global_policy|"
     r"set_dtype_policy|Policy|DTypePolicy)|DTypePolicy|FloatDTypePolicy|"
     r"dtype_policies\.(DTypePolicy|FloatDTypePolicy|get|deserialize))$",
     "float policies only: mixed ones raise"),
    (r"tf\.keras\.utils\.(PyDataset|Sequence)$",
     "batches read in the calling thread (workers kept, not used)"),
    (r"tf\.keras\.config\.set_image_data_format$", "channels_last only"),
    (r"tf\.keras\.(Quantizer|quantizers\.\w+|dtype_policies\.(AWQDTypePolicy|DTypePolicyMap|"
     r"GPTQDTypePolicy|Int4DTypePolicy|QuantizedDTypePolicy|QuantizedFloat8DTypePolicy))$",
     "quantizers and policies compute and serialize as Keras's; Model.quantize and a layer "
     "with a quantized policy raise NotImplementedError"),
    (r"tf\.keras\.distribution\.(ModelParallel|LayoutMap|TensorLayout|distribute_tensor|"
     r"initialize|DataParallel|set_distribution|distribution)$",
     "replicas on this runtime's CPU devices train data-parallel; layouts are checked, not "
     "applied; one process only"),
    (r"tf\.keras\.export\.ExportArchive$",
     "written in this runtime's saved format; non-default endpoints return their outputs as "
     "they are"),
    (r"tf\.keras\.utils\.FeatureSpace$", "adapts in one pass over the data; not saved"),
    (r"tf\.keras\.(StatelessScope|name_scope|RematScope|remat)$",
     "StatelessScope swaps values in while open; name_scope does not prefix variable paths; "
     "remat recomputes nothing"),
    (r"tf\.keras\.wrappers\.SKLearn\w+$",
     "inputs checked with NumPy; a model instance is recompiled without its metrics"),
    (r"tf\.keras\.distillation\.Distiller$", "no sample_weight; not saved"),
    (r"tf\.keras\.ops\.(numpy\.)?vectorize$|tf\.keras\.ops\.image\.(scale_and_translate|"
     r"elastic_transform)$",
     "vectorize follows numpy.vectorize; integer images computed as JAX does"),
    (r"tf\.nn\.fractional_(avg|max)_pool$",
     "TensorFlow's pooling rules, not its random stream"),
    (r"tf\.image\.(adjust_jpeg_quality|random_jpeg_quality|stateless_random_jpeg_quality|"
     r"decode_webp)$|tf\.io\.decode_webp$",
     "through Pillow: JPEG pixels may differ by a few levels"),
    (r"tf\.nn\.RNNCellDropoutWrapper$", "variational_recurrent=True raises"),
    (r"tf\.io\.write_graph$", "text only"),
    (r"tf\.io\.gfile\.get_registered_schemes$", "local paths only"),
    (r"tf\.random_index_shuffle$", "not TensorFlow's permutation; rounds=4 only"),
    (r"tf\.nondifferentiable_batch_function$", "each call runs alone (no batching)"),
    (r"tf\.queue$", "shared_name raises"),
    (r"tf\.quantization$", "axis= and qint32 MIN_FIRST raise"),
    (r"tf\.(config\.experimental_connect_to_(cluster|host)|debugging\.experimental(\."
     r"enable_dump_debug_info)?)$",
     "arguments checked as TensorFlow does, then NotImplementedError naming the alternative"),
    (r"tf\.train\.experimental\.(MaxShardSizePolicy|ShardingCallback|ShardableTensor)$",
     "a checkpoint is one file: only ShardByTaskPolicy is honoured"),
    (r"tf\.saved_model\.(Asset|experimental\.(TrackableResource|read_fingerprint|Fingerprint))$",
     "assets and resources are not written into saved models; fingerprints hash the files"),
    (r"tf\.config\.(threading|optimizer)\.|tf\.config\.(set|get)_soft_device_placement$|"
     r"tf\.config\.experimental\.(set|get)_(synchronous_execution|device_policy)$|"
     r"tf\.debugging\.(set|get)_log_device_placement$",
     "recorded and read back; no effect on the NumPy CPU runtime"),
    (r"tf\.data\.(experimental\.)?(ThreadingOptions|AutotuneOptions|OptimizationOptions)$",
     "recorded and read back; no effect on the NumPy CPU runtime"),
    (r"tf\.data\.experimental\.(copy_to_device|prefetch_to_device)$",
     "one CPU device: elements stay where they are"),
    (r"tf\.data\.experimental\.RandomDataset$",
     "numbers drawn differ from TensorFlow's (NumPy / Philox streams)"),
    (r"tf\.keras\.random\.(gamma|beta)$|tf\.experimental\.numpy\.random\.poisson$",
     "numbers drawn differ from TensorFlow's (NumPy's samplers over Philox streams)"),
    (r"tf\.image\.(stateless_)?sample_distorted_bounding_box$",
     "crops drawn differ from TensorFlow's (NumPy over Philox streams)"),
    (r"tf\.io\.(serialize_sparse|serialize_many_sparse)$", "out_type=tf.string only"),
    (r"tf\.random\.(?!set_seed$|experimental\.(stateless_split|stateless_fold_in)$)"
     r"[a-z_.]*$|tf\.random\.Generator$",
     "numbers drawn differ from TensorFlow's (NumPy / Philox streams)"),
    (r"tf\.(linalg\.)?(eig|eigvals)$|tf\.linalg\.(lu|sqrtm|logm)$|tf\.matrix_square_root$",
     "computed with NumPy: no gradient; eigenvectors may differ in phase"),
    (r"tf\.linalg\.eigh_tridiagonal$", "vectors may differ in sign"),
    (r"tf\.linalg\.(svd|qr|eig|eigh|eigvals|eigvalsh|cholesky)$",
     "real float matrices only; vectors may differ in sign"),
    (r"tf\.(sort|argsort)$", "sorting is always stable"),
    (r"tf\.(dtypes\.|experimental\.)?(bfloat16|float8_\w+|float4_e2m1fn|u?int[24])$|"
     r"tf\.dtypes\.experimental\.\w+$",
     "needs ml_dtypes (extra [dtypes]); NumPy and XLA tiers"),
    (r"tf\.(dtypes\.)?(q|qu)int(8|16|32)$|tf\.dtypes\.QUANTIZED_DTYPES$",
     "the dtypes only: no quantized ops"),
    (r"tf\.(cast|dtypes\.saturate_cast)$", "float-to-integer casts saturate"),
    (r"tf\.saved_model\.(save|load)$|tf\.train\.Checkpoint$|tf\.keras\.models\.(save_model|"
     r"load_model)$", "writes and reads this project's own file formats"),
    (r"tf\.io\.(serialize_tensor|parse_tensor)$", "NumPy .npy bytes, not TensorProto"),
    (r"tf\.saved_model\.contains_saved_model$", "looks for this project's saved_model.json"),
    (r"tf\.test$", "a CPU runtime: no GPU, CUDA or ROCm; no sessions"),
    (r"tf\.strings\.regex_(replace|full_match)$", "Python's re instead of RE2"),
    (r"tf\.image\.(adjust_(contrast|saturation|hue)|(stateless_)?random_(hue|saturation))$",
     "differentiable (TensorFlow's are not)"),
    (r"tf\.nn\.(conv[123]d|conv2d_transpose|depthwise_conv2d|separable_conv2d)$"
     r"|tf\.keras\.layers\.(Conv[123]D|Conv[123]DTranspose|DepthwiseConv2D|SeparableConv2D)$",
     "channels-last data only"),
    (r"tf\.keras\.layers\.(MultiHeadAttention|TimeDistributed|UpSampling2D)$",
     "options listed in the differences"),
    (r"tf\.keras\.preprocessing\.image\.ImageDataGenerator$",
     "random transforms drawn from NumPy"),
    (r"tf\.feature_column(\.|$)", "describes columns only"),
    (r"tf\.keras\.ops\.(linalg\.)?(svd|qr|eigh)$", "vectors may differ in sign"),
    (r"tf\.keras\.ops\.(nn\.)?(conv|conv_transpose|depthwise_conv|separable_conv|max_pool|"
     r"average_pool|adaptive_average_pool|adaptive_max_pool)$", "channels-last 1-D and 2-D data only"),
    (r"tf\.keras\.ops\.(linalg\.)?lu_factor$", "SciPy's pivots; one square matrix"),
    (r"tf\.keras\.ops\.(numpy\.)?unique$", "flattened only (axis=None)"),
    (r"tf\.keras\.ops\.image\.resize$", "no pad_to_aspect_ratio"),
    (r"tf\.keras\.ops\.(scan|associative_scan)$", "unrolled: the length must be known"),
    (r"tf\.keras\.applications\.MobileNetV3(Small|Large)$",
     "input_shape defaults to 224x224 (Keras: any size)"),
)


def tf_names() -> list[tuple[str, str]]:
    """(dotted name, kind) of every name in the committed TensorFlow listing."""
    rows = []
    for line in NAMES.read_text().splitlines():
        if line and not line.startswith("#"):
            name, kind = line.split()
            rows.append((name, kind))
    return rows


def _resolves(runtime, dotted: str) -> bool:
    value = runtime
    for part in dotted.split(".")[1:]:
        try:
            value = getattr(value, part)
        except Exception:  # noqa: BLE001 - a name that raises when read is not offered
            return False
    # a stand-in that only raises NotImplementedError naming itself (keras.applications'
    # models without a builder) is not offered
    return not getattr(value, "__not_offered__", False)


def _first(rules, dotted: str) -> str | None:
    for pattern, reason in rules:
        if re.match(pattern, dotted):
            return reason
    return None


def classify(runtime, dotted: str) -> tuple[str, str]:
    """(class, note) of one TensorFlow name."""
    reason = _first(NOT_MEANINGFUL_RULES, dotted)
    if reason is not None:
        return NOT_MEANINGFUL, reason
    if not _resolves(runtime, dotted):
        return MISSING, ""
    difference = _first(DIFFERENCES, dotted)
    return (DIFFERENT, difference) if difference else (OFFERED, "")


def _group(dotted: str) -> str:
    parts = dotted.split(".")
    depth = 3 if parts[1] in ("keras", "experimental") and len(parts) > 3 else 2
    return ".".join(parts[:depth]) if len(parts) > depth else "tf" if len(parts) == 2 \
        else ".".join(parts[:-1])


def table() -> dict[str, list[tuple[str, str, str]]]:
    """namespace -> [(name, class, note)], in the listing's order."""
    runtime = importlib.import_module("runtime")
    groups: dict[str, list[tuple[str, str, str]]] = collections.defaultdict(list)
    for dotted, _kind in tf_names():
        cls, note = classify(runtime, dotted)
        groups[_group(dotted)].append((dotted, cls, note))
    return dict(sorted(groups.items()))


def _percent(counts: collections.Counter) -> str:
    meaningful = counts[OFFERED] + counts[DIFFERENT] + counts[MISSING]
    if not meaningful:
        return "–"
    return f"{100 * (counts[OFFERED] + counts[DIFFERENT]) / meaningful:.1f}%"


def body() -> str:
    groups = table()
    every = collections.Counter(c for rows in groups.values() for _, c, _ in rows)
    core = collections.Counter(c for g, rows in groups.items() if not g.startswith("tf.keras")
                               for _, c, _ in rows)
    keras = every - core
    lines = [
        f"{sum(every.values())} TensorFlow names: {every[OFFERED]} offered, {every[DIFFERENT]} "
        f"offered with documented differences, {every[NOT_MEANINGFUL]} not meaningful here, "
        f"{every[MISSING]} missing.",
        "",
        f"Offered, of the meaningful names: **{_percent(every)}** overall; "
        f"{_percent(core)} of TensorFlow's own (`tf` without `tf.keras`), "
        f"{_percent(keras)} of `tf.keras`.",
        "",
        "| namespace | offered | with differences | not meaningful | missing | offered % |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for group, rows in groups.items():
        counts = collections.Counter(c for _, c, _ in rows)
        lines.append(f"| `{group}` | {counts[OFFERED]} | {counts[DIFFERENT]} | "
                     f"{counts[NOT_MEANINGFUL]} | {counts[MISSING]} | {_percent(counts)} |")
    lines += ["", "### Offered with documented differences", "",
              f"Each difference is explained in [For TensorFlow users]({_USERS}).", ""]
    lines += [f"- `{n}`: {note}" for rows in groups.values() for n, c, note in rows
              if c == DIFFERENT]
    lines += ["", "### Not meaningful here", ""]
    lines += [f"- `{n}`: {note}" for rows in groups.values() for n, c, note in rows
              if c == NOT_MEANINGFUL]
    lines += ["", "### Missing", ""]
    for group, rows in groups.items():
        missing = [n[len(group) + 1:] for n, c, _ in rows if c == MISSING]
        if missing:
            lines.append(f"- `{group}` ({len(missing)}): " + ", ".join(f"`{m}`" for m in missing))
    return "\n".join(lines)


def render(text: str) -> str:
    return generated_region.replace(text, SCRIPT, body())


def main(argv: list[str]) -> int:
    return generated_region.main(PAGE, render, argv, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
