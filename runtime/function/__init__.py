"""Compiled functions: `rt.function` / `rt.defun`, their cache of concrete functions, callbacks.

Modules, bottom to top: `keys` (cache keys of calls), `signature` (matching values against
traced specs), `concrete` (ConcreteFunction), `callers` (generated fast callers), `cache`
(the trace cache), `logs` and `callbacks` (who is told of traces), `conversion` (autograph,
loaded lazily), `reporting` (the hook through which the report tool, a layer above, builds
`Function.report`'s page), `polymorphic` (Function) and `api` (the decorators and switches).
"""

from .api import (
    defun,
    defun_with_attributes,
    experimental_functions_run_eagerly,
    experimental_run_functions_eagerly,
    function,
    functions_run_eagerly,
    register,
    run_functions_eagerly,
)
from .callbacks import add_function_callback, clear_function_callbacks, remove_function_callback
from .concrete import ConcreteFunction
from .logs import add_trace_listener, remove_trace_listener
from .polymorphic import Function

__all__ = [
    "ConcreteFunction", "Function", "add_function_callback", "add_trace_listener",
    "clear_function_callbacks", "defun", "defun_with_attributes",
    "experimental_functions_run_eagerly", "experimental_run_functions_eagerly", "function",
    "functions_run_eagerly", "register", "remove_function_callback", "remove_trace_listener",
    "run_functions_eagerly",
]
