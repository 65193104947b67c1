"""The functions converted code calls (as `ag__.<name>`), one concept per module.

Each runs plain Python for plain values and hands staged values to the backend registered
for them (see `dispatch`)."""

from .conditionals import if_exp, if_stmt
from .directives import set_loop_options
from .dispatch import Backend, backend_of, backends, register_backend, staged_backend, unregister_backend
from .exceptions import assert_stmt
from .iterables import StagedEnumerate, StagedRange, StagedZip
from .lists import get_item, list_append, list_pop, set_item
from .logical import and_, eq, ne, not_, or_
from .loops import for_stmt, while_stmt
from .py_builtins import abs_, all_, any_, bool_, enumerate_, float_, int_, len_, max_, min_, print_, range_, sum_, zip_
from .special_values import BREAK, Return, StagedJump, Undefined
from .staged_raise import catching
from .staging import StagingError

__all__ = [
    "if_stmt", "if_exp", "while_stmt", "for_stmt", "and_", "or_", "not_", "eq", "ne",
    "assert_stmt", "catching", "list_append", "list_pop", "get_item", "set_item", "set_loop_options",
    "len_", "range_", "enumerate_", "zip_", "abs_", "int_", "float_", "bool_", "min_", "max_",
    "sum_", "any_", "all_", "print_",
    "BREAK", "Return", "Undefined", "StagedJump", "StagingError",
    "Backend", "register_backend", "unregister_backend", "backends", "backend_of", "staged_backend",
    "StagedRange", "StagedEnumerate", "StagedZip",
]
