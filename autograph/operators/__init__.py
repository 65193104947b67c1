"""The functions converted code calls (as `ag__.<name>`), one concept per module.

Each runs plain Python for plain values and hands staged values to the backend registered
for them (see `dispatch`). The names load their modules on first use (PEP 562): a backend
registering itself loads `dispatch` alone, and converted code loads the operators it calls.
"""

from typing import TYPE_CHECKING

from .. import _lazy_names

#: each name's module
_MODULES = {
    "if_stmt": "conditionals", "if_exp": "conditionals",
    "set_loop_options": "directives",
    "Backend": "dispatch", "backend_of": "dispatch", "backends": "dispatch",
    "register_backend": "dispatch", "staged_backend": "dispatch", "unregister_backend": "dispatch",
    "assert_stmt": "exceptions",
    "StagedEnumerate": "iterables", "StagedRange": "iterables", "StagedZip": "iterables",
    "get_item": "lists", "list_append": "lists", "list_pop": "lists", "set_item": "lists",
    "and_": "logical", "eq": "logical", "ne": "logical", "not_": "logical", "or_": "logical",
    "for_stmt": "loops", "while_stmt": "loops",
    "abs_": "py_builtins", "all_": "py_builtins", "any_": "py_builtins", "bool_": "py_builtins",
    "enumerate_": "py_builtins", "float_": "py_builtins", "int_": "py_builtins",
    "len_": "py_builtins", "max_": "py_builtins", "min_": "py_builtins",
    "print_": "py_builtins", "range_": "py_builtins", "sum_": "py_builtins", "zip_": "py_builtins",
    "BREAK": "special_values", "Return": "special_values", "StagedJump": "special_values",
    "Undefined": "special_values",
    "catching": "staged_raise",
    "StagingError": "staging",
}

__all__ = [
    "if_stmt", "if_exp", "while_stmt", "for_stmt", "and_", "or_", "not_", "eq", "ne",
    "assert_stmt", "catching", "list_append", "list_pop", "get_item", "set_item", "set_loop_options",
    "len_", "range_", "enumerate_", "zip_", "abs_", "int_", "float_", "bool_", "min_", "max_",
    "sum_", "any_", "all_", "print_",
    "BREAK", "Return", "Undefined", "StagedJump", "StagingError",
    "Backend", "register_backend", "unregister_backend", "backends", "backend_of", "staged_backend",
    "StagedRange", "StagedEnumerate", "StagedZip",
]


__getattr__, __dir__ = _lazy_names(globals(), _MODULES)


if TYPE_CHECKING:
    from .conditionals import if_exp, if_stmt
    from .directives import set_loop_options
    from .dispatch import (
        Backend,
        backend_of,
        backends,
        register_backend,
        staged_backend,
        unregister_backend,
    )
    from .exceptions import assert_stmt
    from .iterables import StagedEnumerate, StagedRange, StagedZip
    from .lists import get_item, list_append, list_pop, set_item
    from .logical import and_, eq, ne, not_, or_
    from .loops import for_stmt, while_stmt
    from .py_builtins import (
        abs_,
        all_,
        any_,
        bool_,
        enumerate_,
        float_,
        int_,
        len_,
        max_,
        min_,
        print_,
        range_,
        sum_,
        zip_,
    )
    from .special_values import BREAK, Return, StagedJump, Undefined
    from .staged_raise import catching
    from .staging import StagingError
