"""Conversion options: `Feature` flags and whether called functions are converted too."""

from __future__ import annotations

import enum
from typing import Iterable, Union

from ..records import FrozenRecord


class Feature(enum.Enum):
    """Optional conversions. Every feature except `EQUALITY_OPERATORS` and `STAGED_PRINT` is
    on by default; features given explicitly (one, or a list or tuple of them) are added to
    those, as in TensorFlow. `ConversionOptions(features=...)` sets the exact set. `ALL`
    turns on every feature TensorFlow has, which leaves out `STAGED_PRINT`: name it to use
    it. `print` is converted only when `BUILTIN_FUNCTIONS` (or `ALL`) is named, as
    TensorFlow converts it only under that optional feature."""

    ALL = "ALL"
    #: `assert` statements become staged assertions.
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    #: `len`, `range`, `enumerate`, `zip`, `min`, `max`, ... accept staged values. Named
    #: explicitly, it also stages `print` of tensors (it prints their values when the graph
    #: runs; a `print` of Python values only still runs when tracing), as TensorFlow does.
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    #: `==` and `!=` become `ag__.eq` / `ag__.ne` (rarely needed: tensors compare elementwise).
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    #: `l.append(x)` / `l.pop()` on lists that staged loops grow become staged list operations.
    LISTS = "LISTS"
    #: Accepted for compatibility; side effects are ordered by the runtime already.
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    #: Accepted for compatibility; no effect.
    NAME_SCOPES = "NAME_SCOPES"
    #: `print(...)` of converted code is staged while a function traces: it prints at every
    #: run of the graph, like `rt.print`, instead of once per trace (this project's own
    #: feature, not TensorFlow's, so `ALL` leaves it out; needs `BUILTIN_FUNCTIONS` too).
    STAGED_PRINT = "STAGED_PRINT"


#: features `Feature.ALL` does not turn on (they change what TensorFlow's code does)
NOT_IN_ALL = frozenset({Feature.STAGED_PRINT})


DEFAULT_FEATURES = frozenset({Feature.ASSERT_STATEMENTS, Feature.BUILTIN_FUNCTIONS, Feature.LISTS,
                              Feature.AUTO_CONTROL_DEPS, Feature.NAME_SCOPES})

FeatureSpec = Union[None, Feature, Iterable[Feature]]


class ConversionOptions(FrozenRecord):
    """How to convert: `recursive` converts the functions converted code calls;
    `features` are the optional conversions in use; `requested` the features the user named
    (`features` adds the default ones to them)."""

    _fields = ("recursive", "features", "requested")
    recursive: bool
    features: frozenset
    requested: frozenset

    def __init__(self, recursive: bool = True, features: frozenset = DEFAULT_FEATURES,
                 requested: frozenset = frozenset()) -> None:
        self.__dict__.update(recursive=recursive, features=features, requested=requested)

    def uses(self, feature: Feature) -> bool:
        return feature in self.features or (Feature.ALL in self.features
                                            and feature not in NOT_IN_ALL)

    def print_mode(self) -> str:
        """How `print` is converted: "always" (`STAGED_PRINT`: every print is staged),
        "tensors" (`BUILTIN_FUNCTIONS` or `ALL` named: prints of tensors are staged, as
        TensorFlow does) or "" (left as Python's `print`, which runs when tracing)."""
        if self.uses(Feature.STAGED_PRINT) and self.uses(Feature.BUILTIN_FUNCTIONS):
            return "always"
        if self.requested & {Feature.BUILTIN_FUNCTIONS, Feature.ALL}:
            return "tensors"
        return ""

    @classmethod
    def make(cls, recursive: bool = True, optional_features: FeatureSpec = None) -> "ConversionOptions":
        named = named_features(optional_features)
        return cls(recursive=bool(recursive), features=DEFAULT_FEATURES | named, requested=named)


def features_from(spec: FeatureSpec) -> frozenset:
    """The feature set for a user's `experimental_optional_features` argument: the default
    features plus the given ones."""
    return DEFAULT_FEATURES | named_features(spec)


def named_features(spec: FeatureSpec) -> frozenset:
    """The features a user's `experimental_optional_features` argument names."""
    if spec is None:
        return frozenset()
    if isinstance(spec, Feature):
        spec = (spec,)
    out = set()
    for f in spec:
        if not isinstance(f, Feature):
            raise TypeError(f"experimental_optional_features must hold ag.experimental.Feature "
                            f"values, got {f!r}")
        out.add(f)
    return frozenset(out)
