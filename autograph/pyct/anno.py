"""Annotations: small pieces of analysis attached to syntax-tree nodes.

Every key is a constant of `Key`; a converter never spells one as a string.
"""

from __future__ import annotations

from typing import Any

_PREFIX = "__ag_"
_MISSING = object()


class Key:
    """The annotation keys: which node carries each, who sets it and who reads it."""

    #: Lambda the operator it is passed to calls at once (a branch, a lazy operand), so what it
    #: reads is not captured by a closure. Set by the converters that make such lambdas
    #: (asserts, conditional_expressions, control_flow, logical_expressions); read by activity.
    IMMEDIATE = "immediate"
    #: FunctionDef made by control_flow (a branch or loop body); read by control_flow (an
    #: `elif` chain) and activity (whose result it caches under SCOPE_ACTIVITY).
    GENERATED = "generated"
    #: GENERATED function: its `activity.scope_activity`, computed once (it does not change).
    SCOPE_ACTIVITY = "scope_activity"
    #: FunctionDef: whether it is a generator. Set by `transformer.is_generator` (which caches
    #: its answer) and by impl.conversion (from the code object).
    IS_GENERATOR = "is_generator"
    #: If/While/For that stays a Python statement (its test is a Python bool, or it jumps
    #: out of a `try`/`with`). Set by jumps; read by control_flow.
    PLAIN = "plain"
    #: If/While/For holding a jump: its operator call is returned. Set by jumps; read by
    #: control_flow.
    RETURNS_RESULT = "returns_result"
    #: If that guards the code after a flagged jump. Set by jump_flags; read by control_flow.
    AFTER_JUMP = "after_jump"
    #: While/For: the keywords of its `set_loop_options` directive. Set by directives; read by
    #: control_flow.
    LOOP_OPTIONS = "loop_options"
    #: If/While/For: the variables its generated functions share with the code around it (in
    #: source order), the variables only they share (TEMPS, `if` only) and the function's
    #: `global` names. Set by statement_variables; read by control_flow.
    NAMES = "names"
    TEMPS = "temps"
    GLOBAL_NAMES = "global_names"
    #: statement: the operator call an `if` became (an `elif` chains into it). Set and read
    #: by control_flow.
    IF_CALL = "if_call"
    #: statement: already preceded by the `l = l` marks of the lists it changes. Set and read
    #: by lists.
    LIST_MARKED = "list_marked"


def setanno(node: Any, key: str, value: Any) -> None:
    """Attaches `value` to `node` under `key`."""
    setattr(node, _PREFIX + key, value)


def getanno(node: Any, key: str, default: Any = _MISSING) -> Any:
    """The annotation `key` of `node`; `default` (or KeyError) when absent."""
    value = getattr(node, _PREFIX + key, _MISSING)
    if value is _MISSING:
        if default is _MISSING:
            raise KeyError(f"{type(node).__name__} node has no annotation {key!r}")
        return default
    return value


def hasanno(node: Any, key: str) -> bool:
    """Whether `node` carries the annotation `key`."""
    return hasattr(node, _PREFIX + key)


def copy_annotations(src: Any, dst: Any) -> None:
    """Gives `dst` every annotation of `src`."""
    for name, value in src.__dict__.items():
        if name.startswith(_PREFIX):
            setattr(dst, name, value)
