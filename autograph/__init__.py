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
"""

from types import SimpleNamespace as _Namespace

from .impl.api import convert, do_not_convert, to_code, to_graph
from .impl.conversion import ConversionError, clear_cache
from .impl.converted_call import converted_call as _converted_call
from .impl.logs import get_verbosity, set_verbosity
from .impl.options import ConversionOptions, Feature
from .operators import Backend, StagingError, register_backend, unregister_backend
from .operators.directives import set_loop_options
from .pipeline_report import report

__version__ = "0.1.0"

experimental = _Namespace(Feature=Feature, set_loop_options=set_loop_options,
                          do_not_convert=do_not_convert)
"""`ag.experimental.Feature`, `ag.experimental.set_loop_options`, `ag.experimental.do_not_convert`."""


def converted_call(f, *args, **kwargs):
    """Calls `f(*args, **kwargs)` converting `f` first (with the default options)."""
    return _converted_call(ConversionOptions(), f, args, kwargs)


__all__ = [
    "to_graph", "to_code", "do_not_convert", "experimental", "set_verbosity", "get_verbosity",
    "Feature", "ConversionOptions", "ConversionError", "StagingError", "converted_call",
    "convert", "clear_cache", "Backend", "register_backend", "unregister_backend",
    "set_loop_options", "report",
]
