"""`LoadedObject`: what `rt.saved_model.load` returns."""

from __future__ import annotations


class LoadedObject:
    """Saved signatures as concrete functions, with their variables as `rt.Variable`s.

    `signatures[name](...)` calls a saved function; `obj.name(...)` does too, and `obj(...)`
    calls the saved `__call__` (a single saved function, or a model's call).
    """

    def __init__(self, kind: str, signatures: dict, variables: list, call: str | None,
                 aliases: dict, overloads: dict | None = None):
        self.kind = kind
        self.signatures = dict(signatures)
        self.variables = list(variables)
        self._call = call
        self._aliases = dict(aliases)
        self._overloads = {name: list(group) for name, group in (overloads or {}).items()}

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable]

    def __call__(self, *args, **kwargs):
        if self._call is None:
            raise TypeError(f"This saved {self.kind} has no __call__; call one of its signatures: "
                            f"{sorted(self.signatures)}.")
        return self._function(self._call)(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("signatures", "_aliases", "_overloads"):
            raise AttributeError(name)
        target = self._aliases.get(name, name)
        if target in self.signatures:
            return self._function(target)
        raise AttributeError(f"The saved {self.kind} has no function {name!r}; it has "
                             f"{sorted(set(self.signatures) | set(self._aliases))}.")

    def _function(self, name: str):
        group = self._overloads.get(name)
        return self.signatures[name] if group is None else Overloaded(name, group)

    def __repr__(self) -> str:
        return (f"<rt.saved_model.LoadedObject {self.kind} signatures={sorted(self.signatures)} "
                f"variables={len(self.variables)}>")


class Overloaded:
    """A saved function traced for several input signatures: a call runs the first trace
    whose signature its arguments fit, as TensorFlow's restored functions do."""

    def __init__(self, name: str, concretes: list):
        self.name = name
        self.concrete_functions = list(concretes)

    def __call__(self, *args, **kwargs):
        for concrete in self.concrete_functions:
            try:
                concrete.bind_values(args, kwargs)
            except (TypeError, ValueError):
                continue
            return concrete(*args, **kwargs)
        signatures = "; ".join(repr(c.structured_input_signature[0])
                               for c in self.concrete_functions)
        raise TypeError(f"The saved function {self.name!r} was traced for other inputs; its "
                        f"traces take: {signatures}.")
