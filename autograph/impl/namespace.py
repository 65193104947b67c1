"""`ag__`: the object converted code reaches the operators through.

There is one per set of conversion options, so that `ag__.converted_call` converts the
functions it calls with the same options as the code that calls them.
"""

from __future__ import annotations

import threading
import types
from typing import Any

from .. import operators
from .options import ConversionOptions

_namespaces: dict[ConversionOptions, types.SimpleNamespace] = {}
_lock = threading.Lock()


def operator_namespace(options: ConversionOptions) -> types.SimpleNamespace:
    """The `ag__` object for `options`."""
    ns = _namespaces.get(options)
    if ns is not None:
        return ns
    from .converted_call import converted_call as _converted_call

    def converted_call(f: Any, /, *args: Any, **kwargs: Any) -> Any:
        return _converted_call(options, f, args, kwargs)

    attrs = {name: getattr(operators, name) for name in operators.__all__}
    ns = types.SimpleNamespace(**attrs, converted_call=converted_call, options=options)
    with _lock:
        _namespaces.setdefault(options, ns)
    return _namespaces[options]
