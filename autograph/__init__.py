"""autograph: converts Python functions so that their control flow can be staged.

    import autograph as ag

    def f(x):
        if x > 0:
            x = x * x
        return x

    print(ag.to_code(f))        # the converted source
    g = ag.to_graph(f)          # the converted function

With Python values the converted function behaves exactly like the original. When a
tensor library (a *backend*, see `autograph.operators.dispatch`) traces it with staged
tensors, `if`/`while`/`for` on those tensors become the backend's `cond` and `while_loop`.

The API names load their modules on first use (PEP 562), so that importing a submodule
such as `autograph.nest` does not load the converter.
"""


import importlib
from typing import TYPE_CHECKING, Any, Callable

__version__ = "0.1.0"

_API = {
    "to_graph": "impl.api", "to_code": "impl.api", "convert": "impl.api",
    "converted_call": "impl.api", "do_not_convert": "impl.api", "experimental": "impl.api",
    "ConversionError": "impl.conversion", "clear_cache": "impl.conversion",
    "get_verbosity": "impl.logs", "set_verbosity": "impl.logs", "trace": "impl.logs",
    "ConversionOptions": "core.options", "Feature": "core.options",
    "Backend": "operators", "StagingError": "operators", "register_backend": "operators",
    "unregister_backend": "operators", "set_loop_options": "operators.directives",
    "report": "pipeline_report",
}

__all__ = [
    "to_graph", "to_code", "do_not_convert", "experimental", "set_verbosity", "get_verbosity",
    "Feature", "ConversionOptions", "ConversionError", "StagingError", "converted_call",
    "convert", "clear_cache", "Backend", "register_backend", "unregister_backend",
    "set_loop_options", "report", "trace",
]


def _lazy_names(namespace: dict, modules: dict) -> tuple[Callable, Callable]:
    """A package's PEP 562 `__getattr__` and `__dir__`: each name of `modules` (name -> the
    submodule defining it, relative to the package) is imported on first use and kept in
    `namespace` (the package's globals)."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(modules))

    return __getattr__, __dir__


__getattr__, __dir__ = _lazy_names(globals(), _API)


if TYPE_CHECKING:
    from .core.options import ConversionOptions, Feature
    from .impl.api import convert, converted_call, do_not_convert, experimental, to_code, to_graph
    from .impl.conversion import ConversionError, clear_cache
    from .impl.logs import get_verbosity, set_verbosity, trace
    from .operators import Backend, StagingError, register_backend, unregister_backend
    from .operators.directives import set_loop_options
    from .pipeline_report import report
