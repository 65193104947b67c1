"""The runtime's import layering: imports only go downward, and none hides inside a function.

The layers, bottom to top, are read from the `layers` block of docs/architecture.md, so the
document and this check are one list. A module may import modules of its own layer or of lower
layers. Within runtime.ops, modules form no cycle either
(`python ../shared/tools/import_layers.py`): gradient rules that need a higher op module live in
runtime/ops/*_grads.py.
"""

import ast
import pathlib
import re

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

# Function-local imports that are deliberate: optional dependencies, and the converter, which
# loads on first use (`runtime.function.conversion` imports `runtime.autograph_backend`, which
# imports autograph). Only these may also reach a higher layer.
LAZY_MODULES = ("runtime.autograph_backend",)
LOCAL_IMPORTS_ALLOWED = ("autograph", "graphviz", "numba", "dask", "distributed", "tqdm",
                         "matplotlib", "pygments", "playwright", "tensorboardX") + LAZY_MODULES


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
                 for target, _, is_local in _imports(name, path)
                 if not is_local and (target == "autograph" or target.startswith("autograph."))}
    assert importing == documented


def test_no_import_climbs_a_layer():
    upward = []
    for name, path in _modules():
        for target, line, is_local in _imports(name, path):
            if not target.startswith("runtime.") or None in (_layer(target), _layer(name)):
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
