"""The runtime's import layering: imports only go downward, and none hides inside a function
or in a string (`importlib.import_module`) but the lazy loads listed here with their reasons.

The layers, bottom to top, are read from the `layers` block of docs/architecture.md, so the
document and this check are one list. A module may import modules of its own layer or of lower
layers. Within runtime.ops, modules form no cycle either
(`python ../shared/tools/import_layers.py`); every gradient rule sits beside its op.
"""

import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _doc_block(info):
    """The lines of the fenced block of docs/architecture.md whose info string is `info`."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    found = re.findall(rf"^```{re.escape(info)}\n(.*?)^```", text, re.S | re.M)
    assert len(found) == 1, f"docs/architecture.md needs one ```{info} block, has {len(found)}"
    return [line for line in found[0].splitlines() if line.strip()]


def _runtime_name(name):
    return "runtime" if name == "__init__" else f"runtime.{name}"


LAYERS = [tuple(_runtime_name(name) for name in line.split()) for line in _doc_block("layers")]

# Imports that wait until they are needed, made inside a function or by name
# (`importlib.import_module`), each with why it waits. Nothing else may hide an import: a lower
# layer that needs an upper one reaches it through `runtime.context.hooks`, which the upper
# layer fills when it is imported (the tape for py_function's gradient, the summary writer for
# WriteSummary's kernel).
OPTIONAL_EXTRAS = {  # third-party packages, imported where used: `import runtime` needs none
    "graphviz": "Graph.to_svg draws with it; optional",
    "matplotlib": "History.plot draws with it; optional",
    "sklearn": "keras.wrappers' estimators subclass scikit-learn's, when first looked up; "
               "optional",
    "numba": "the Numba tier (extra [jit]), when a jit_compile=True function is made",
    "PIL": "Pillow (extra [images]): the JPEG, GIF and BMP codecs, when an image is decoded",
    "tensorboardX": "rt.summary's event files (extra [summary]), when a writer is made",
    "google_crc32c": "CRC-32C in C (extra [tfrecord]), on the first TFRecord CRC",
    "ml_dtypes": "bfloat16, float8 and int4's NumPy types (extra [dtypes]), on first use",
    "google": "protobuf's descriptors of rt.train's messages, for google.protobuf.text_format; "
              "optional, when a message's DESCRIPTOR is read",
}
LAZY_LOADS = {  # (importer, imported): project modules loaded on first use
    ("runtime.function.conversion", "runtime.autograph_backend"):
        "the converter (autograph's pyct, converters, impl) loads on the first conversion",
    ("runtime.backends.numba", "runtime.backends.numba.compiler"):
        "the Numba tier's compiler, with numba, when that tier is asked for",
    ("runtime.backends.xla", "runtime.backends.xla.compiler"):
        "the XLA tier's compiler, with JAX (extra [xla]), when that tier is asked for",
    ("runtime", "runtime.report"): "the HTML report tool, on the first report",
    ("runtime", "runtime.gradients"):
        "rt.GradientTape and friends (the package is already loaded with function/)",
    ("runtime", "runtime.layers"): "rt.layers and rt.Model, on first use",
    ("runtime", "runtime.saved_model"):
        "with rt.layers and rt.Model: it fills Model.export's writer (it imports the layers)",
    ("runtime", "runtime.layers.callbacks"): "rt.callbacks, on first use",
    ("runtime", "runtime.keras"): "rt.keras, on first use",
    ("runtime", "runtime.optimizers"): "rt.optimizers and rt.train, on first use",
    ("runtime", "autograph"): "rt.autograph (tf.autograph) is the converter package itself",
    ("runtime", "?"): "rt.saved_model, dask, data, summary, profiler and lite, on first use",
    ("runtime.layers.function_source", "?"):
        "the modules a saved lambda names, loaded only with safe_mode=False",
    ("runtime.summary._state", "?"): "tensorboardX's proto modules, by name (extra [summary])",
    ("runtime.distribute", "runtime.distribute.multi_worker"):
        "rt.distribute.MultiWorkerMirroredStrategy and Dask (extra [dask]), on first use",
    ("runtime.exports", "?"): "the names of LAZY_NAMES (rt.linalg's LinearOperators), on first use",
    ("runtime.ops", "?"):
        "the op families of runtime.ops.LAZY_FAMILIES (strings, io_*, image, lookup, signal, ...): "
        "when a name, an op looked up by name or the whole registry is asked for",
    ("runtime.experimental", "?"):
        "rt.experimental's names from the op families loaded on first use (RowPartition, ...)",
    ("runtime.data.experimental_more", "sqlite3"): "SQLite, with the first SqlDataset read",
    ("runtime.experimental", "runtime.data"): "rt.experimental.Optional (rt.data's), on first use",
    ("runtime", "runtime.data"): "rt.OptionalSpec (rt.data's), on first use",
    ("runtime", "runtime.linalg_extras"): "tf.eig, eigvals, matrix_square_root, on first use",
    ("runtime", "runtime.tftest"): "rt.test (tf.test's TestCase, compute_gradient), on first use",
    ("runtime.experimental", "runtime.experimental.numpy"):
        "rt.experimental.numpy (TensorFlow's tnp), on first use: `import runtime` stays fast",
    ("runtime.ops.io_tfrecord", "gzip"): "with the first GZIP-compressed TFRecord file",
    ("runtime.ops.io_gfile", "shutil"):
        "rt.io.gfile.copy and rmtree: shutil imports bz2 and lzma, which `import runtime` skips",
    ("runtime.ops.io_gfile", "glob"): "rt.io.gfile.glob: glob compiles regular expressions",
    ("runtime.layers.callbacks", "urllib"):
        "RemoteMonitor's first post: urllib.request loads http.client and email",
    ("runtime.keras.preprocessing.text", "hashlib"):
        "hashing_trick(hash_function='md5'): OpenSSL's bindings, when asked for",
    ("runtime.keras.backend_ops", "runtime.ops.ctc"):
        "keras.backend.ctc_decode's beam search (TensorFlow 1's, merging repeats), on first use",
    ("runtime.keras.ops_core", "runtime.linalg_extras"):
        "keras.ops.eig: rt.linalg's NumPy decompositions, loaded on first use as rt.linalg's",
    ("runtime.arguments", "difflib"): "the 'did you mean' of a misspelt keyword, when raised",
    ("runtime.html_repr", "html"): "html.escape (and its entity table), for the first HTML view",
    ("runtime.keras.random", "runtime.ops.random_distributions"):
        "keras.random.gamma and beta: the gamma and Poisson op family, loaded on first use",
    ("runtime.keras.ops_image", "runtime.ops.image_crops"):
        "keras.ops.image.extract_patches_3d: tf.extract_volume_patches's family, on first use",
    ("runtime.experimental.numpy", "runtime.ops.random_distributions"):
        "tnp.random.poisson: the gamma and Poisson op family, loaded on first use",
    ("runtime.ops.random", "random"):
        "Python's random (the op-seed sequence of a global seed), with the first rt.random.set_seed",
    ("runtime.graph", "runtime.graph_def"): "Graph.as_graph_def's plain data, on first use",
    ("runtime.ops.array_extras", "logging"):
        "rt.get_logger: `import runtime` does not import logging (it compiles regular "
        "expressions); the runtime's own loggers import it on first use (autograph.logging_util)",
    ("runtime.layers.initializers", "scipy"):
        "scipy.signal's windows for keras.initializers.STFT beyond the five in NumPy",
    ("runtime.ops.math_sobol", "scipy"):
        "scipy.stats.qmc.Sobol (TensorFlow's direction numbers) for tf.math.sobol_sample",
    ("runtime.keras.preprocessing.image_generator", "scipy"):
        "SciPy's ndimage for ImageDataGenerator's affine transforms (extras [images], [jit])",
    ("runtime.keras.preprocessing.image_transforms", "scipy"):
        "SciPy's ndimage for keras.preprocessing.image.apply_affine_transform (extra [images])",
    ("runtime.layers.model_plot", "IPython"):
        "IPython's display, to show a drawn model in a notebook (only when IPython is there)",
}


def _modules():
    for path in sorted((ROOT / "runtime").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        yield name.removesuffix(".__init__"), path


def _absolute(target, anchor):
    """`target` ("..x", ".", "x") resolved against the package `anchor`, as importlib does."""
    dots = len(target) - len(target.lstrip("."))
    if not dots:
        return target
    parts = anchor.split(".")
    base = parts[: len(parts) - dots + 1]
    rest = target[dots:]
    return ".".join(base + ([rest] if rest else []))


def _dynamic_target(call, name, package):
    """The module an `import_module(...)` / `__import__(...)` call names, "?" when computed."""
    args = call.args
    if not args or not isinstance(args[0], ast.Constant) or not isinstance(args[0].value, str):
        return "?"
    target = args[0].value
    if not target.startswith("."):
        return target
    anchor = args[1] if len(args) > 1 else None
    if isinstance(anchor, ast.Name) and anchor.id in ("__name__", "__package__"):
        return _absolute(target, name if anchor.id == "__name__" else package)
    if isinstance(anchor, ast.Constant) and isinstance(anchor.value, str):
        return _absolute(target, anchor.value)
    return "?"


def _is_dynamic_import(call):
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return called in ("import_module", "__import__")


def _imports(name, path):
    """(imported module, line, how) for every import in `path`: `how` is "" for an import
    statement at module level, "local" for one inside a function, "dynamic" for a module
    imported by name (`importlib.import_module`, `__import__`; "?" when the name is computed)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                ast.Lambda))
            how = "local" if local else ""
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, how) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = _absolute("." * child.level + (child.module or ""), package)
                found.extend((f"{base}.{a.name}", child.lineno, how) for a in child.names)
            elif isinstance(child, ast.Call) and _is_dynamic_import(child):
                found.append((_dynamic_target(child, name, package), child.lineno, "dynamic"))
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def _lazy_load(name, target):
    """The LAZY_LOADS key that allows `name` to import `target` late (the most specific), or
    None."""
    keys = [(importer, imported) for importer, imported in LAZY_LOADS
            if importer == name and (target == imported or target.startswith(imported + "."))]
    return max(keys, key=lambda key: len(key[1]), default=None)


def _hidden_imports():
    """(importer, target, where) for every import inside a function or by name."""
    return [(name, target, f"{path.relative_to(ROOT)}:{line} ({how})")
            for name, path in _modules()
            for target, line, how in _imports(name, path) if how]


def _layer(module):
    """The rank of `module`'s layer: that of the longest name in the block that is `module` or
    a package holding it (`runtime` itself, the top, holds none: it is runtime/__init__.py)."""
    best = None
    for rank, group in enumerate(LAYERS):
        for prefix in group:
            if module == prefix or (prefix != "runtime" and module.startswith(prefix + ".")):
                if best is None or len(prefix) > best[1]:
                    best = (rank, len(prefix))
    return None if best is None else best[0]


def test_every_runtime_module_has_a_layer():
    assert [name for name, _ in _modules() if _layer(name) is None] == []


def test_every_layer_name_is_a_runtime_module():
    modules = {name for name, _ in _modules()}
    named = [prefix for group in LAYERS for prefix in group]
    assert [prefix for prefix in named if prefix not in modules] == []
    assert len(named) == len(set(named)), "a module is named in two layers"


def test_the_documented_autograph_importers_are_the_modules_that_import_autograph():
    documented = {_runtime_name(line.split()[0]) for line in _doc_block("autograph-importers")}
    importing = {name for name, path in _modules()
                 for target, _, how in _imports(name, path)
                 if not how and (target == "autograph" or target.startswith("autograph."))}
    assert importing == documented


def test_no_import_climbs_a_layer():
    """Module level, inside a function or by name: no import reaches a higher layer."""
    upward = []
    for name, path in _modules():
        for target, line, how in _imports(name, path):
            if not target.startswith("runtime.") or None in (_layer(target), _layer(name)):
                continue
            if _layer(target) > _layer(name):
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {target} {how}".rstrip())
    assert upward == []


def test_no_hidden_imports_but_the_listed_lazy_loads():
    """An import inside a function or by name is an optional extra or a listed lazy load."""
    hidden = [f"{where} imports {target}" for name, target, where in _hidden_imports()
              if target.partition(".")[0] not in OPTIONAL_EXTRAS
              and _lazy_load(name, target) is None]
    assert hidden == [], ("reach an upper layer through runtime.context.hooks, or list a lazy "
                          "load in LAZY_LOADS with its reason")


def test_every_listed_lazy_load_is_made():
    """The allow-lists name only what the code does: a load no longer made leaves the list."""
    made = {_lazy_load(name, target) for name, target, _ in _hidden_imports()}
    assert sorted(set(LAZY_LOADS) - made) == []
    extras = {target.partition(".")[0] for _, target, _ in _hidden_imports()}
    assert sorted(set(OPTIONAL_EXTRAS) - extras) == []


def test_the_reader_sees_hidden_imports(tmp_path):
    """The reader finds imports inside functions and by name, relative ones resolved."""
    source = ("import importlib\n"
              "def f():\n"
              "    from ..summary import _state\n"
              "    importlib.import_module('runtime.gradients.tape')\n"
              "    importlib.import_module('.tape', __package__)\n"
              "    importlib.import_module(f'runtime.{f}')\n")
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    found = _imports("runtime.ops.probe", path)
    assert found == [("importlib", 1, ""), ("runtime.summary._state", 3, "local"),
                     ("runtime.gradients.tape", 4, "dynamic"), ("runtime.ops.tape", 5, "dynamic"),
                     ("?", 6, "dynamic")]


def test_upper_layers_fill_their_context_hooks_when_imported():
    """The tape registers with the runtime; the summary writer only once rt.summary loads."""
    program = ("import sys, runtime\n"
               "from runtime.context import hooks\n"
               "assert hooks.gradient_tape is runtime.GradientTape\n"
               "assert hooks.write_summary is None and 'runtime.summary' not in sys.modules\n"
               "from runtime.summary import _state\n"
               "assert hooks.write_summary is _state.write_staged\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_packages_do_not_leak_the_future_feature():
    import autograph
    import runtime
    assert not hasattr(runtime, "annotations")
    assert not hasattr(autograph, "annotations")


def test_import_runtime_leaves_the_lazy_op_families_unloaded():
    """`import runtime` loads none of runtime.ops.LAZY_FAMILIES; their names resolve on first use
    (dir() lists them), and the registry lists their ops whatever was loaded before."""
    program = (
        "import sys, runtime as rt\n"
        "from runtime import exports, lazy_ops, opdef, ops\n"
        "families = {f'runtime.ops.{f}' for f in ops.LAZY_FAMILIES}\n"
        "assert families.isdisjoint(sys.modules), sorted(families & set(sys.modules))\n"
        "assert set(lazy_ops.OPS.values()) | {m for names in lazy_ops.NAMES.values()\n"
        "                                     for m in names.values()} <= families\n"
        "for space, names in lazy_ops.NAMES.items():\n"
        "    holder = rt\n"
        "    for part in space.split('.') if space else ():\n"
        "        holder = getattr(holder, part)\n"
        "    listed = dir(holder)\n"
        "    for name, module in names.items():\n"
        "        assert name in listed, (space, name)\n"
        "        assert getattr(holder, name) is getattr(sys.modules[module], name), (space, name)\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_op_registry_does_not_depend_on_what_was_loaded_before():
    """An op of a lazy family is found by name (as the saved-model loader looks it up), and
    builtin_ops() is the same list in a fresh interpreter as after loading every family."""
    program = (
        "import sys, runtime\n"
        "from runtime import lazy_ops, opdef, ops\n"
        "name, module = sorted(lazy_ops.OPS.items())[0]\n"
        "assert module not in sys.modules and name not in opdef.REGISTRY\n"
        "assert opdef.lookup(name) is opdef.REGISTRY[name] and module in sys.modules\n"
        "assert opdef.lookup('NoSuchOp') is None\n"
        "listed = sorted(opdef.builtin_ops())\n"
        "ops.load_all()\n"
        "assert listed == sorted(opdef.builtin_ops())\n"
        "assert set(lazy_ops.OPS) <= set(listed)\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_lazy_op_table_is_current():
    """runtime/lazy_ops.py names the module of every op and name of the lazy families."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_lazy_ops
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert not make_lazy_ops.stale(), "runtime/lazy_ops.py is stale: run `python docs/make_lazy_ops.py`"
