"""Writes docs/tf_api_names.txt: the names TensorFlow exports, read with `dir()`.

    /path/to/python-with-tensorflow docs/list_tf_api_names.py > docs/tf_api_names.txt

Run by hand with an interpreter that has TensorFlow (and Keras 3) installed; the project
itself never imports TensorFlow. Every public name of `tf` is listed, and the namespaces in
WALKED are listed recursively (sub-namespaces whose names are in SKIPPED are listed but not
entered). Each line is `dotted.name kind`, kind one of module, class, function, value.
"""

from __future__ import annotations

import types

WALKED = ("math", "nn", "linalg", "random", "image", "signal", "strings", "sparse", "ragged",
          "bitwise", "dtypes", "debugging", "config", "io", "data", "train", "summary",
          "saved_model", "autograph", "experimental", "types", "errors", "keras")
SKIPPED = {"compat", "raw_ops", "lite", "tpu", "v1", "v2", "tools", "mlir", "xla"}


def _kind(value) -> str:
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type):
        return "class"
    return "function" if callable(value) else "value"


def listing(tf) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    seen = {id(tf)}

    def walk(path: str, module, recurse: bool) -> None:
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            try:
                value = getattr(module, name)
            except Exception:  # noqa: BLE001 - a lazily loaded name that fails to load
                continue
            rows.append((f"{path}.{name}", _kind(value)))
            if (isinstance(value, types.ModuleType) and name not in SKIPPED
                    and (recurse or name in WALKED) and id(value) not in seen):
                seen.add(id(value))
                walk(f"{path}.{name}", value, True)

    walk("tf", tf, False)
    return rows


if __name__ == "__main__":
    import tensorflow

    print(f"# TensorFlow {tensorflow.__version__} exported names (docs/list_tf_api_names.py)")
    for full, kind in listing(tensorflow):
        print(full, kind)
