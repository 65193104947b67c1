"""TensorFlow's cluster messages and cluster connection: `rt.train.ClusterDef`, `JobDef`,
`ServerDef` (plain message classes with the fields of TensorFlow's protocol buffers, their
text-format repr and field equality), `rt.config.experimental.ClusterDeviceFilters`, and
`rt.config.experimental_connect_to_cluster` / `experimental_connect_to_host`.

This runtime has no remote eager execution (ops placed on `/job:worker/task:N` of another
process): connecting validates its arguments as TensorFlow does, then raises
NotImplementedError naming what is not supported. Distribution runs on Dask instead:
`rt.distribute.MultiWorkerMirroredStrategy(cluster_resolver=DaskClusterResolver(client))`.

    cluster = rt.train.ClusterDef(job=[rt.train.JobDef(name="worker",
                                                       tasks={0: "host0:2222"})])
    rt.train.ClusterSpec(cluster).as_dict()   # {'worker': ['host0:2222']}
"""

from __future__ import annotations

from typing import Any

from . import context
from .exports import export
from .train_example import DecodeError, _delimited, _tag, _varint_bytes, fields

# -- messages -------------------------------------------------------------------------------------


def _quote(text: str) -> str:
    """A string as protobuf's text format writes it (C escapes, double quotes)."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


class _Repeated(list):
    """A repeated message field: a list of `kind` messages, with protobuf's `add(**fields)`."""

    def __init__(self, kind: type, items: Any = ()) -> None:
        super().__init__()
        self._kind = kind
        self.extend(items)

    def add(self, **fields: Any) -> Any:
        """Appends a new message made from `fields` and returns it."""
        message = self._kind(**fields)
        super().append(message)
        return message

    def append(self, item: Any) -> None:
        super().append(self._check(item))

    def extend(self, items: Any) -> None:
        for item in items:
            self.append(item)

    def _check(self, item: Any) -> Any:
        if isinstance(item, dict):
            return self._kind(**item)
        if not isinstance(item, self._kind):
            raise TypeError(f"Expected a {self._kind.__name__} in this repeated field, got "
                            f"{type(item).__name__}.")
        return item


class _Message:
    """A protocol-buffer-like message: keyword fields (an unknown one is a ValueError, as
    protobuf raises), field equality, text-format `repr`/`str` (fields at their default
    are not printed, as in proto3)."""

    _FIELDS: tuple = ()  # (name, kind) in field-number order; kind: str, int, a message
    # class, ("repeated", message class) or ("map", key type, value type)

    def __init__(self, **fields: Any) -> None:
        known = dict(self._FIELDS)
        for name in fields:
            if name not in known:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" '
                                 "field.")
        for name, kind in self._FIELDS:
            object.__setattr__(self, name, self._default(kind))
            if fields.get(name) is not None:
                setattr(self, name, fields[name])

    @staticmethod
    def _default(kind: Any) -> Any:
        if kind is str:
            return ""
        if kind is int:
            return 0
        if isinstance(kind, tuple) and kind[0] == "repeated":
            return _Repeated(kind[1])
        if isinstance(kind, tuple) and kind[0] == "map":
            return {}
        if isinstance(kind, tuple):  # ("strings",): a repeated string field
            return []
        return kind()

    def __setattr__(self, name: str, value: Any) -> None:
        kind = dict(self._FIELDS).get(name)
        if kind is None:
            raise AttributeError(f'Protocol message {type(self).__name__} has no "{name}" '
                                 "field.")
        object.__setattr__(self, name, self._convert(name, kind, value))

    def _convert(self, name: str, kind: Any, value: Any) -> Any:
        where = f"{type(self).__name__}.{name}"
        if kind in (str, int):
            if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{where} must be an int, got {value!r}.")
            if kind is str and not isinstance(value, str):
                raise TypeError(f"{where} must be a str, got {value!r}.")
            return value
        if isinstance(kind, tuple) and kind[0] == "repeated":
            return _Repeated(kind[1], value)
        if isinstance(kind, tuple) and kind[0] == "map":
            _, key_kind, value_kind = kind
            if not isinstance(value, dict):
                raise TypeError(f"{where} must be a dict, got {type(value).__name__}.")
            out = {}
            for key, item in value.items():
                if isinstance(key, bool) or not isinstance(key, key_kind) \
                        or not isinstance(item, value_kind):
                    raise TypeError(f"{where} maps {key_kind.__name__} to "
                                    f"{value_kind.__name__}, got {key!r}: {item!r}.")
                out[key] = item
            return out
        if not isinstance(value, kind):
            raise TypeError(f"{where} must be a {kind.__name__}, got {type(value).__name__}.")
        return value

    def _is_default(self, name: str, kind: Any) -> bool:
        value = getattr(self, name)
        if isinstance(value, _Message):
            return value == type(value)()
        return value == self._default(kind)

    def _text(self, indent: str = "") -> list[str]:
        lines = []
        for name, kind in self._FIELDS:
            if self._is_default(name, kind):
                continue
            value = getattr(self, name)
            if isinstance(kind, tuple) and kind[0] == "repeated":
                for item in value:
                    lines += [f"{indent}{name} {{", *item._text(indent + "  "), f"{indent}}}"]
            elif isinstance(kind, tuple) and kind[0] == "map":
                for key in sorted(value):
                    key_text = _quote(key) if isinstance(key, str) else str(key)
                    lines += [f"{indent}{name} {{", f"{indent}  key: {key_text}",
                              f"{indent}  value: {_quote(value[key])}", f"{indent}}}"]
            elif isinstance(value, _Message):
                lines += [f"{indent}{name} {{", *value._text(indent + "  "), f"{indent}}}"]
            elif isinstance(value, str):
                lines.append(f"{indent}{name}: {_quote(value)}")
            else:
                lines.append(f"{indent}{name}: {value}")
        return lines

    def __repr__(self) -> str:
        return "".join(line + "\n" for line in self._text())

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(list(getattr(self, n)) == list(getattr(other, n))
                   if isinstance(getattr(self, n), list) else getattr(self, n) == getattr(other, n)
                   for n, _ in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, as protobuf messages

    def CopyFrom(self, other: Any) -> None:  # noqa: N802 - protobuf's name
        """Makes this message a copy of `other` (a message of the same class)."""
        if type(other) is not type(self):
            raise TypeError(f"{type(self).__name__}.CopyFrom takes a {type(self).__name__}, "
                            f"got {type(other).__name__}.")
        for name, _ in self._FIELDS:
            value = getattr(other, name)
            if isinstance(value, _Message):
                copy = type(value)()
                copy.CopyFrom(value)
                value = copy
            elif isinstance(value, list):
                value = [_copied(item) for item in value]
            elif isinstance(value, dict):
                value = {key: _copied(item) for key, item in value.items()}
            setattr(self, name, value)

    def Clear(self) -> None:  # noqa: N802 - protobuf's name
        """Sets every field back to its default."""
        for name, kind in self._FIELDS:
            object.__setattr__(self, name, self._default(kind))

    # -- protobuf's wire format ------------------------------------------------------------
    _NUMBERS: dict | None = None  # field name -> field number (default: 1, 2, ... in order)

    @classmethod
    def _number(cls, name: str) -> int:
        if cls._NUMBERS is not None:
            return cls._NUMBERS[name]
        return [n for n, _ in cls._FIELDS].index(name) + 1

    def SerializeToString(self) -> bytes:  # noqa: N802 - protobuf's name
        """The message in protobuf's binary wire format (TensorFlow's bytes, but for the
        order of map entries, which protobuf leaves unspecified)."""
        out = bytearray()
        for name, kind in self._FIELDS:
            if self._is_default(name, kind):
                continue
            number, value = self._number(name), getattr(self, name)
            if isinstance(kind, tuple) and kind[0] == "map":
                for key, item in value.items():
                    _put_len(out, number, _varint_field(1, key) + _value_bytes(2, item))
            elif isinstance(kind, tuple):  # repeated messages or strings
                for item in value:
                    _put_len(out, number, _payload(item))
            elif kind is int:
                out += _varint_field(number, value)
            else:
                _put_len(out, number, _payload(value))
        return bytes(out)

    def ParseFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf's name
        """Replaces the fields by those of the wire-format `data` (unknown fields skipped);
        returns the number of bytes read. Malformed data raises ValueError."""
        self.Clear()
        self.MergeFromString(data)
        return len(data)

    def MergeFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf's name
        """Merges the fields of the wire-format `data` into this message."""
        kinds = dict(self._FIELDS)
        names = {self._number(n): n for n, _ in self._FIELDS}
        for number, wire, value in _fields_of(bytes(data), type(self).__name__):
            name = names.get(number)
            if name is None:
                continue
            kind = kinds[name]
            expected = 0 if kind is int else 2
            if wire != expected:
                raise ValueError(f"Error parsing message {type(self).__name__}: field "
                                 f"{name} has wire type {wire}.")
            if kind is int:
                object.__setattr__(self, name, _int32(value))
            elif kind is str:
                object.__setattr__(self, name, value.decode("utf-8"))
            elif isinstance(kind, tuple) and kind[0] == "map":
                entry = {n: v for n, _, v in _fields_of(value, f"{type(self).__name__}.{name}")}
                key = _int32(entry.get(1, 0))
                item = entry.get(2, b"")
                getattr(self, name)[key] = item.decode("utf-8") if kind[2] is str \
                    else kind[2].FromString(item)
            elif isinstance(kind, tuple) and kind[0] == "repeated":
                getattr(self, name).append(kind[1].FromString(value))
            elif isinstance(kind, tuple):  # repeated strings
                getattr(self, name).append(value.decode("utf-8"))
            else:
                getattr(self, name).MergeFromString(value)
        return len(data)

    @classmethod
    def FromString(cls, data: bytes) -> Any:  # noqa: N802 - protobuf's name
        """A new message parsed from the wire-format `data`."""
        message = cls()
        message.MergeFromString(data)
        return message


def _varint_field(number: int, value: int) -> bytes:
    return _tag(number, 0) + _varint_bytes(value)


def _payload(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value.SerializeToString()


def _value_bytes(number: int, value: Any) -> bytes:
    return _delimited(number, _payload(value))


def _put_len(out: bytearray, number: int, payload: bytes) -> None:
    out += _delimited(number, payload)


def _int32(value: int) -> int:
    value &= (1 << 32) - 1
    return value - (1 << 32) if value >= 1 << 31 else value


def _fields_of(data: bytes, where: str):
    """(field number, wire type, value) of each field of `data`: an int for varints, bytes
    for length-delimited fields; fixed-width fields are skipped (the Example wire reader's,
    its errors as protobuf's ValueError naming the message)."""
    try:
        for number, wire, value in fields(data):
            if wire == 2:
                yield number, wire, data[value[0]:value[1]]
            elif wire == 0:
                yield number, wire, value
    except DecodeError as exc:
        raise ValueError(f"Error parsing message {where}: truncated or malformed data "
                         f"({exc}).") from None


def _copied(message: Any) -> Any:
    if not isinstance(message, _Message):
        return message
    copy = type(message)()
    copy.CopyFrom(message)
    return copy


@export("train.JobDef")
class JobDef(_Message):
    """One job of a cluster (TensorFlow's `tensorflow.JobDef`): `name` and `tasks`, a dict
    from task index (int) to its address "host:port"."""

    _FIELDS = (("name", str), ("tasks", ("map", int, str)))


@export("train.ClusterDef")
class ClusterDef(_Message):
    """A cluster (TensorFlow's `tensorflow.ClusterDef`): `job`, a repeated field of JobDefs
    (`cluster.job.add(name="worker")`)."""

    _FIELDS = (("job", ("repeated", JobDef)),)


class TaskDeviceFilters(_Message):
    """`device_filters`: the devices a task may see (TensorFlow's TaskDeviceFilters)."""

    _FIELDS = (("device_filters", ("strings",)),)

    def __init__(self, **fields: Any) -> None:
        object.__setattr__(self, "device_filters", [])
        if "device_filters" in fields:
            self.device_filters = fields.pop("device_filters")
        if fields:
            raise ValueError(f'Protocol message TaskDeviceFilters has no "{next(iter(fields))}" '
                             "field.")

    def _convert(self, name: str, kind: Any, value: Any) -> Any:
        items = list(value)
        if not all(isinstance(item, str) for item in items):
            raise TypeError(f"TaskDeviceFilters.device_filters must hold str, got {items!r}.")
        return items

    def _is_default(self, name: str, kind: Any) -> bool:
        return not self.device_filters

    def _text(self, indent: str = "") -> list[str]:
        return [f"{indent}device_filters: {_quote(item)}" for item in self.device_filters]


class JobDeviceFilters(_Message):
    """A job's device filters: `name` and `tasks` {task index: TaskDeviceFilters}."""

    _FIELDS = (("name", str), ("tasks", ("map", int, TaskDeviceFilters)))

    def _text(self, indent: str = "") -> list[str]:
        lines = [f"{indent}name: {_quote(self.name)}"] if self.name else []
        for key in sorted(self.tasks):
            lines += [f"{indent}tasks {{", f"{indent}  key: {key}", f"{indent}  value {{",
                      *self.tasks[key]._text(indent + "    "), f"{indent}  }}", f"{indent}}}"]
        return lines


class ClusterDeviceFiltersDef(_Message):
    """TensorFlow's `tensorflow.ClusterDeviceFilters` message: `jobs`, JobDeviceFilters."""

    _FIELDS = (("jobs", ("repeated", JobDeviceFilters)),)


@export("train.ServerDef")
class ServerDef(_Message):
    """A server of a cluster (TensorFlow's `tensorflow.ServerDef`): its `cluster`
    (ClusterDef), `job_name`, `task_index`, `protocol` ("grpc"), `port`,
    `cluster_device_filters` and `replica`. `default_session_config` (a ConfigProto) has no
    counterpart here: giving one raises NotImplementedError."""

    _NUMBERS = {"cluster": 1, "job_name": 2, "task_index": 3, "protocol": 5, "port": 6,
                "cluster_device_filters": 7, "replica": 8}  # 4: default_session_config
    _FIELDS = (("cluster", ClusterDef), ("job_name", str), ("task_index", int),
               ("protocol", str), ("port", int),
               ("cluster_device_filters", ClusterDeviceFiltersDef), ("replica", int))

    def __init__(self, default_session_config: Any = None, **fields: Any) -> None:
        if default_session_config is not None:
            raise NotImplementedError("ServerDef(default_session_config=...) is not supported "
                                      "here: this runtime has no ConfigProto sessions.")
        super().__init__(**fields)


# -- connecting ------------------------------------------------------------------------------------

@export("config.experimental.ClusterDeviceFilters")
class ClusterDeviceFilters:
    """The devices each task of a cluster may see, for `experimental_connect_to_cluster`:
    `set_device_filters(job_name, task_index, device_filters)`."""

    def __init__(self) -> None:
        self._filters: dict[str, dict[int, list[str]]] = {}

    def set_device_filters(self, job_name: str, task_index: int, device_filters) -> None:
        """Sets the device filters ("/job:ps", "/job:worker/task:1", ...) of one task."""
        if not isinstance(job_name, str):
            raise TypeError(f"set_device_filters: job_name must be a str, got {job_name!r}.")
        if isinstance(task_index, bool) or not isinstance(task_index, int):
            raise TypeError(f"set_device_filters: task_index must be an int, got "
                            f"{task_index!r}.")
        filters = [device_filters] if isinstance(device_filters, str) else list(device_filters)
        if not all(isinstance(f, str) for f in filters):
            raise TypeError(f"set_device_filters: device_filters must be strings, got "
                            f"{device_filters!r}.")
        self._filters.setdefault(job_name, {})[task_index] = filters

    def _as_cluster_device_filters(self) -> ClusterDeviceFiltersDef:
        """The filters as TensorFlow's ClusterDeviceFilters message (jobs and tasks sorted)."""
        message = ClusterDeviceFiltersDef()
        for job in sorted(self._filters):
            entry = message.jobs.add(name=job)
            for task, filters in self._filters[job].items():
                entry.tasks[task] = TaskDeviceFilters(device_filters=filters)
        return message

    def __repr__(self) -> str:
        return f"ClusterDeviceFilters({self._filters!r})"


def _cluster_dict(value: Any) -> dict:
    """{job: {task: address}} of a ClusterSpec (rt.train's or a resolver's) or resolver."""
    if callable(getattr(value, "cluster_spec", None)):  # a ClusterResolver
        value = value.cluster_spec()
    if not callable(getattr(value, "as_dict", None)):
        raise ValueError("`cluster_spec_or_resolver` must be a `ClusterSpec` or a "
                         f"`ClusterResolver`, got {type(value).__name__}.")
    jobs = {}
    for job, tasks in value.as_dict().items():
        jobs[job] = dict(enumerate(tasks)) if isinstance(tasks, (list, tuple)) else dict(tasks)
    return jobs


@export("config.experimental_connect_to_cluster")
def experimental_connect_to_cluster(cluster_spec_or_resolver, job_name: str = "localhost",
                                    task_index: int = 0, protocol: str | None = None,
                                    make_master_device_default: bool = True,
                                    cluster_device_filters=None) -> None:
    """TensorFlow connects this process to a cluster's servers so that ops can be placed on
    their devices. This runtime has no remote eager execution: the arguments are checked as
    TensorFlow checks them (a ValueError for a wrong kind of cluster, device filters or when
    called inside a traced function), then NotImplementedError is raised. Use
    `rt.distribute.MultiWorkerMirroredStrategy` with a `DaskClusterResolver` to compute on
    several machines."""
    if not context.executing_eagerly():
        raise ValueError("`tf.config.experimental_connect_to_cluster` can only be called in "
                         "eager mode.")
    jobs = _cluster_dict(cluster_spec_or_resolver)
    if cluster_device_filters is not None and \
            not isinstance(cluster_device_filters, ClusterDeviceFilters):
        raise ValueError("`cluster_device_filters` must be an instance of "
                         "`tf.config.experimental.ClusterDeviceFilters`.")
    if not isinstance(job_name, str) or isinstance(task_index, bool) \
            or not isinstance(task_index, int):
        raise TypeError(f"experimental_connect_to_cluster: job_name must be a str and "
                        f"task_index an int, got {job_name!r} and {task_index!r}.")
    if protocol not in (None, "grpc"):
        raise ValueError(f"experimental_connect_to_cluster: unknown protocol {protocol!r}; "
                         "TensorFlow's is 'grpc'.")
    _refuse_connection(jobs, "experimental_connect_to_cluster")


def _refuse_connection(jobs: dict, caller: str) -> None:
    where = ", ".join(f"{job}: {sorted(tasks.values())}" for job, tasks in sorted(jobs.items()))
    raise NotImplementedError(
        f"rt.config.{caller}: remote eager execution (placing ops on "
        f"the devices of other processes, here {{{where}}}) is not supported by this runtime. "
        "To compute on several machines, run a Dask cluster and use "
        "rt.distribute.MultiWorkerMirroredStrategy(cluster_resolver="
        "rt.distribute.cluster_resolver.DaskClusterResolver(client)).")


@export("config.experimental_connect_to_host")
def experimental_connect_to_host(remote_host=None, job_name: str = "worker") -> None:
    """`experimental_connect_to_cluster` for the cluster {job_name: remote_host} (one
    address or a list): raises ValueError without a host, then NotImplementedError as
    `experimental_connect_to_cluster` does."""
    if not context.executing_eagerly():
        raise ValueError("`tf.config.experimental_connect_to_host` can only be called in "
                         "eager mode.")
    if not remote_host:
        raise ValueError("Must provide at least one remote_host")
    hosts = [remote_host] if isinstance(remote_host, str) else list(remote_host)
    if not all(isinstance(host, str) for host in hosts):
        raise TypeError(f"experimental_connect_to_host: remote_host must be an address or a "
                        f"list of addresses, got {remote_host!r}.")
    _refuse_connection({job_name: dict(enumerate(hosts))}, "experimental_connect_to_host")
