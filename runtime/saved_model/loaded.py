"""`LoadedObject`: what `rt.saved_model.load` returns."""

from __future__ import annotations


class LoadedObject:
    """Saved functions as concrete functions, with their variables as `rt.Variable`s.

    `obj.name(...)` calls a saved function and `obj(...)` the saved `__call__` (a single
    saved function, or a model's call); `signatures[name](...)` calls a saved signature (a
    module saved without `signatures=` has none, as in TensorFlow). Variables saved as
    attributes of a module are attributes again (`obj.v`, `obj.inner.kernel`).
    """

    def __init__(self, kind: str, signatures: dict, variables: list, call: str | None,
                 aliases: dict, overloads: dict | None = None,
                 signature_names: list | None = None, attributes: dict | None = None):
        self.kind = kind
        self._functions = dict(signatures)
        self._signature_names = None if signature_names is None else list(signature_names)
        self.signatures = {name: fn for name, fn in self._functions.items()
                           if signature_names is None or name in signature_names}
        self.variables = list(variables)
        self._call = call
        self._aliases = dict(aliases)
        self._overloads = {name: list(group) for name, group in (overloads or {}).items()}
        self._attributes = dict(attributes or {})

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable]

    @property
    def non_trainable_variables(self) -> list:
        return [v for v in self.variables if not v.trainable]

    def __call__(self, *args, **kwargs):
        if self._call is None:
            raise TypeError(f"This saved {self.kind} has no __call__; call one of its functions: "
                            f"{sorted(self._functions)}.")
        return self._function(self._call)(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("signatures", "_aliases", "_overloads",
                                             "_functions", "_attributes", "_signature_names"):
            raise AttributeError(name)
        target = self._aliases.get(name, name)
        if target in self._functions:
            return self._function(target)
        found = _attribute(self._attributes, name)
        if found is not None:
            return found
        raise AttributeError(f"The saved {self.kind} has no function or variable {name!r}; it "
                             f"has {sorted(set(self._functions) | set(self._aliases))} and "
                             f"{sorted({p.split('.')[0] for p in self._attributes})}.")

    def _function(self, name: str):
        group = self._overloads.get(name)
        return self._functions[name] if group is None else Overloaded(name, group)

    def __repr__(self) -> str:
        return (f"<rt.saved_model.LoadedObject {self.kind} signatures={sorted(self.signatures)} "
                f"variables={len(self.variables)}>")


class LoadedAttributes:
    """A saved module's sub-module, as far as the loaded object knows it: its variables."""

    def __init__(self, path: str, attributes: dict):
        self._path = path
        self._attributes = attributes

    @property
    def variables(self) -> list:
        return list(self._attributes.values())

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        found = _attribute(self._attributes, name)
        if found is None:
            raise AttributeError(f"The saved object {self._path!r} has no variable {name!r}; it "
                                 f"has {sorted({p.split('.')[0] for p in self._attributes})}.")
        return found

    def __repr__(self) -> str:
        return f"<rt.saved_model.LoadedAttributes {self._path} variables={len(self._attributes)}>"


def _attribute(attributes: dict, name: str):
    """The variable at `name`, a `LoadedAttributes` of the paths under `name.`, or None."""
    if name in attributes:
        return attributes[name]
    prefix = name + "."
    inner = {path[len(prefix):]: v for path, v in attributes.items() if path.startswith(prefix)}
    if inner and all(f"_{i}" in inner for i in range(len(inner))):
        return [inner[f"_{i}"] for i in range(len(inner))]  # a saved list (`name._0`, ...)
    return LoadedAttributes(name, inner) if inner else None


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
