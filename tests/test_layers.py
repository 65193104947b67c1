"""The runtime's import layering: imports only go downward, and none hides inside a function.

The layers, bottom to top, are those of docs/architecture.md. A module may import modules of
its own layer or of lower layers. Within runtime.ops, modules form no cycle either
(`python ../shared/tools/import_layers.py`): gradient rules that need a higher op module live in
runtime/ops/*_grads.py.
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]

LAYERS = [
    ("runtime.dtypes", "runtime.shapes", "runtime.errors", "runtime.nest", "runtime.context",
     "runtime.traceback_utils",
     "runtime.exports"),
    ("runtime.opdef",),
    ("runtime.tensor", "runtime.graph", "runtime.graph_printer"),
    ("runtime.ops", "runtime.numpy_api"),
    ("runtime.gradients",),
    ("runtime.passes",),
    ("runtime.backends",),
    ("runtime.tracing", "runtime.function", "runtime.autograph_backend", "runtime.inspect_tools"),
    ("runtime.layers", "runtime.optimizers", "runtime.saved_model", "runtime.dask",
     "runtime.report"),
    ("runtime",),
]

# Function-local imports that are deliberate: optional dependencies, and tools that load on
# first use: the converter (`runtime.autograph_backend` imports autograph) and the HTML report
# (`Function.report`). Only these may also reach a higher layer.
LAZY_MODULES = ("runtime.autograph_backend", "runtime.report")
LOCAL_IMPORTS_ALLOWED = ("autograph", "graphviz", "numba", "dask", "distributed", "tqdm",
                         "matplotlib", "pygments", "playwright") + LAZY_MODULES


def _allowed_local(target):
    return any(target == a or target.startswith(a + ".") for a in LOCAL_IMPORTS_ALLOWED)


def _modules():
    for path in sorted((ROOT / "runtime").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        yield name.removesuffix(".__init__"), path


def _imports(name, path):
    """(imported module, line, is_local) for every import of a project module in `path`."""
    is_package = path.name == "__init__.py"
    found = []

    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, local) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = name.split(".")
                    keep = len(parts) - child.level + (1 if is_package else 0)
                    base = ".".join(parts[:keep] + ([base] if base else []))
                found.extend((f"{base}.{a.name}", child.lineno, local) for a in child.names)
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def _layer(module):
    best = None
    for rank, group in enumerate(LAYERS):
        for prefix in group:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (rank, len(prefix))
    return None if best is None else best[0]


def test_every_runtime_module_has_a_layer():
    assert [name for name, _ in _modules() if _layer(name) is None] == []


def test_no_import_climbs_a_layer():
    upward = []
    for name, path in _modules():
        for target, line, is_local in _imports(name, path):
            if not target.startswith("runtime.") or _layer(target) is None:
                continue
            if is_local and target.startswith(LAZY_MODULES):
                continue
            if _layer(target) > _layer(name):
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert upward == []


def test_no_function_local_imports_but_optional_and_lazy_ones():
    local = []
    for name, path in _modules():
        for target, line, is_local in _imports(name, path):
            if is_local and not _allowed_local(target):
                local.append(f"{path.relative_to(ROOT)}:{line} imports {target} inside a function")
    assert local == []


def test_the_packages_do_not_leak_the_future_feature():
    import autograph
    import runtime
    assert not hasattr(runtime, "annotations")
    assert not hasattr(autograph, "annotations")
