"""TFRecord files, byte for byte TensorFlow's format: each record is its length (uint64 little
endian), the masked CRC32C of the length, the data, and the masked CRC32C of the data; a file
may be GZIP- or ZLIB-compressed as a whole.

`rt.io.TFRecordWriter` and `rt.io.TFRecordOptions` write them; `read_records` reads them for
`rt.data.TFRecordDataset`, checking both CRCs (a mismatch or a truncated record is a
`rt.errors.DataLossError` naming the file and the offset). A declared length is checked against
what the file still holds before anything is allocated.
"""

from __future__ import annotations

import gzip
import os
import struct
import zlib
from typing import Iterator

import numpy as np

from ..errors import DataLossError, NotFoundError
from ..exports import export

_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reflected
_MASK_DELTA = 0xA282EAD8


def _table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_POLY), table >> 1).astype(np.uint32)
    return table


_TABLE = _TABLE_LIST = None


def _tables():
    global _TABLE, _TABLE_LIST
    if _TABLE is None:
        _TABLE = _table()
        _TABLE_LIST = _TABLE.tolist()
    return _TABLE, _TABLE_LIST


def crc32c(data: bytes) -> int:
    """The CRC-32C (Castagnoli) of `data`."""
    return int(crc32c_many([bytes(data)])[0])


_PIECE = 4096  # longer items are cut into pieces whose CRCs are combined


def crc32c_many(items: list[bytes]) -> np.ndarray:
    """The CRC-32C of each of `items` (uint32), computed for all of them at once: one NumPy
    step per byte position over the items still that long; items longer than 4 KB are cut
    into pieces whose CRCs are combined (CRCs are linear), so the steps stay few."""
    if not items or max(len(b) for b in items) <= _PIECE:
        return _crc_short(items)
    pieces, owners = [], []
    for n, item in enumerate(items):
        first = len(item) % _PIECE or min(len(item), _PIECE)
        cuts = [0] + list(range(first, len(item), _PIECE)) + [len(item)]
        pieces.extend(item[a:b] for a, b in zip(cuts[:-1], cuts[1:]) if b > a or len(item) == 0)
        owners.extend([n] * max(len(cuts) - 1, 1) if len(item) else [n])
    crcs = _crc_short(pieces).tolist()
    out = np.zeros(len(items), np.uint32)
    shift = _zeros_operator(_PIECE)
    current, previous = 0, -1
    for owner, crc in zip(owners, crcs):
        current = crc if owner != previous else _gf2_times(shift, current) ^ crc
        out[owner], previous = current, owner
    return out


def _gf2_times(matrix: list[int], vector: int) -> int:
    out, i = 0, 0
    while vector:
        if vector & 1:
            out ^= matrix[i]
        vector >>= 1
        i += 1
    return out


_OPERATORS: dict[int, list[int]] = {}


def _zeros_operator(n: int) -> list[int]:
    """The linear map of the CRC register for `n` zero bytes (columns of a GF(2) matrix)."""
    if n in _OPERATORS:
        return _OPERATORS[n]
    one = []
    for i in range(32):
        reg = 1 << i
        for _ in range(8):
            reg = (reg >> 1) ^ (_POLY if reg & 1 else 0)
        one.append(reg)
    result, power, k = None, one, n
    while k:
        if k & 1:
            result = power if result is None else [_gf2_times(power, c) for c in result]
        power = [_gf2_times(power, c) for c in power]
        k >>= 1
    _OPERATORS[n] = result
    return result


_POSITIONS = None


def _position_tables():
    """(T, Z): T[d, b] is what byte b adds to a zero-started CRC register with d bytes after
    it; Z[n] the register started at 0xFFFFFFFF after n zero bytes (n <= _PIECE)."""
    global _POSITIONS
    if _POSITIONS is None:
        table, table_list = _tables()
        rows = np.empty((_PIECE, 256), np.uint32)
        rows[0] = table
        for d in range(1, _PIECE):
            prev = rows[d - 1]
            rows[d] = table[prev & 0xFF] ^ (prev >> 8)
        z = [0xFFFFFFFF]
        for _ in range(_PIECE):
            z.append(table_list[z[-1] & 0xFF] ^ (z[-1] >> 8))
        _POSITIONS = rows.ravel(), np.array(z, np.uint32)
    return _POSITIONS


_ARANGE = np.arange(0, dtype=np.int32)


def _positions(n: int) -> np.ndarray:
    """0, 1, ..., n - 1 (int32), from a cached array (no new pages for every chunk)."""
    global _ARANGE
    if _ARANGE.size < n:
        _ARANGE = np.arange(max(n, 1 << 22), dtype=np.int32)
    return _ARANGE[:n]


def _crc_short(items: list[bytes]) -> np.ndarray:
    """The CRC-32C of each of `items` (at most _PIECE bytes each), all at once: each byte's
    contribution looked up by its value and its distance to the item's end, XORed per item
    (the CRC is linear)."""
    flat_table, z = _position_tables()
    lengths = np.fromiter((len(b) for b in items), np.int64, len(items))
    data = np.frombuffer(b"".join(items), np.uint8)
    ends = np.cumsum(lengths)
    if data.size >= 1 << 31:
        raise ValueError("crc32c_many: at most 2 GB at once")
    dist = np.repeat((ends - 1).astype(np.int32), lengths)
    dist -= _positions(data.size)
    dist <<= 8
    dist += data
    contrib = flat_table[dist]
    raw = np.zeros(len(items), np.uint32)
    full = lengths > 0
    if data.size:
        raw[full] = np.bitwise_xor.reduceat(contrib, (ends - lengths)[full])
    return raw ^ z[lengths] ^ np.uint32(0xFFFFFFFF)


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC: the CRC-32C rotated right by 15 bits plus a constant."""
    return _mask(crc32c(data))


def _mask(crc):
    crc = np.uint64(crc) if np.isscalar(crc) else crc.astype(np.uint64)
    rotated = ((crc >> np.uint64(15)) | (crc << np.uint64(17))) & np.uint64(0xFFFFFFFF)
    masked = (rotated + np.uint64(_MASK_DELTA)) & np.uint64(0xFFFFFFFF)
    return int(masked) if np.ndim(masked) == 0 else masked.astype(np.uint32)


def _compression(value, what: str = "compression_type") -> str:
    if value is None:
        return ""
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    if isinstance(value, int) and not isinstance(value, bool):
        value = {0: "", 1: "ZLIB", 2: "GZIP"}.get(value, value)
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str) or value.upper() not in ("", "GZIP", "ZLIB"):
        raise ValueError(f"`{what}` must be None, '', 'GZIP' or 'ZLIB', got {value!r}.")
    return value.upper()


@export("io.TFRecordCompressionType")
class TFRecordCompressionType:
    """The compression kinds of TFRecord files."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


@export("io.TFRecordOptions")
class TFRecordOptions:
    """How a TFRecord file is compressed: `compression_type` None/'' (none), 'GZIP' or 'ZLIB';
    `compression_level` 0..9 (None: zlib's default)."""

    compression_type_map = {0: "", 1: "ZLIB", 2: "GZIP"}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.compression_type = _compression(compression_type)
        if compression_level is not None and not (isinstance(compression_level, int)
                                                  and -1 <= compression_level <= 9):
            raise ValueError(f"`compression_level` must be an int in -1..9, got {compression_level!r}.")
        self.compression_level = compression_level
        for name, value in (("flush_mode", flush_mode), ("window_bits", window_bits),
                            ("compression_method", compression_method), ("mem_level", mem_level),
                            ("compression_strategy", compression_strategy)):
            if value is not None:
                raise ValueError(f"TFRecordOptions: `{name}` is not supported here; leave it None.")
        self.input_buffer_size, self.output_buffer_size = input_buffer_size, output_buffer_size

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        return _compression(options, "options")


def encode_record(data: bytes) -> bytes:
    """One record's bytes: length, masked CRC of the length, data, masked CRC of the data."""
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", masked_crc32c(header)) + data
            + struct.pack("<I", masked_crc32c(data)))


def encode_records(records: list[bytes]) -> bytes:
    """The bytes of several records, their CRCs computed together."""
    headers = [struct.pack("<Q", len(r)) for r in records]
    header_crcs = _mask(crc32c_many(headers)).tolist()
    data_crcs = _mask(crc32c_many(records)).tolist()
    out = []
    for header, hcrc, data, dcrc in zip(headers, header_crcs, records, data_crcs):
        out += [header, struct.pack("<I", hcrc), data, struct.pack("<I", dcrc)]
    return b"".join(out)


class _ZlibWriter:
    """A file object compressing with a raw zlib stream (TensorFlow's ZLIB: zlib header)."""

    def __init__(self, raw, level):
        self._raw = raw
        self._z = zlib.compressobj(-1 if level is None else level)

    def write(self, data: bytes) -> None:
        self._raw.write(self._z.compress(data))

    def flush(self) -> None:
        self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self) -> None:
        self._raw.write(self._z.flush())
        self._raw.close()


@export("io.TFRecordWriter")
class TFRecordWriter:
    """Writes records (bytes) to a TFRecord file: `with rt.io.TFRecordWriter(path) as w:
    w.write(example.SerializeToString())`. `options`: a `TFRecordOptions` or a compression
    type string ('', 'GZIP', 'ZLIB')."""

    def __init__(self, path, options=None):
        self._path = os.fsdecode(path)
        kind = _compression(options, "options")
        level = options.compression_level if isinstance(options, TFRecordOptions) else None
        parent = os.path.dirname(self._path)
        if parent and not os.path.isdir(parent):
            raise NotFoundError(f"{self._path}: the directory {parent} does not exist")
        raw = open(self._path, "wb")
        if kind == "GZIP":
            self._file = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                       compresslevel=9 if level in (None, -1) else level)
            self._raw = raw
        elif kind == "ZLIB":
            self._file, self._raw = _ZlibWriter(raw, level), None
        else:
            self._file, self._raw = raw, None
        self._closed = False
        self._pending: list[bytes] = []
        self._pending_size = 0

    def write(self, record) -> None:
        """Appends one record (bytes, str, or a scalar string tensor). Records are framed
        in groups (their CRCs computed together); `flush` and `close` write out the rest."""
        self._check_open()
        data = _record_bytes(record)
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size >= 1 << 20 or len(self._pending) >= 4096:
            self._drain()

    def _drain(self) -> None:
        if self._pending:
            self._file.write(encode_records(self._pending))
            self._pending, self._pending_size = [], 0

    def flush(self) -> None:
        self._check_open()
        self._drain()
        self._file.flush()

    def close(self) -> None:
        if not self._closed:
            self._drain()
            self._file.close()
            if self._raw is not None:
                self._raw.close()
            self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"TFRecordWriter for {self._path} is closed.")

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _record_bytes(record) -> bytes:
    if isinstance(record, str):
        return record.encode("utf-8")
    if isinstance(record, (bytes, bytearray, memoryview)):
        return bytes(record)
    value = np.asarray(record.numpy() if hasattr(record, "numpy") else record, dtype=object)
    if value.ndim != 0 or not isinstance(value.item(), (bytes, str)):
        raise TypeError(f"TFRecordWriter.write takes bytes (one record), got {record!r:.60}.")
    return _record_bytes(value.item())


class _ZlibReader:
    """Reads a ZLIB-compressed file as a stream (bounded memory)."""

    def __init__(self, raw):
        self._raw, self._z = raw, zlib.decompressobj()

    def read(self, n: int) -> bytes:
        while True:
            raw = self._raw.read(n)
            if not raw:
                return self._z.flush()
            out = self._z.decompress(raw)
            if out:
                return out

    def close(self) -> None:
        self._raw.close()


def _open_for_reading(path: str, kind: str):
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise NotFoundError(f"{path} is a directory, not a file") from None
    if kind == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "ZLIB":
        return _ZlibReader(raw)
    return raw


def read_records(path: str, compression_type=None, chunk: int = 1 << 22,
                 check_crc: bool = True) -> Iterator[list[bytes]]:
    """The records of the TFRecord file `path`, in lists read `chunk` bytes at a time; both
    CRCs of each record are checked (DataLossError naming the file and the offset)."""
    kind = _compression(compression_type)
    fh = _open_for_reading(path, kind)
    file_size = os.path.getsize(path) if not kind else None
    try:
        yield from _records(path, fh, max(int(chunk), 1 << 12), file_size, check_crc)
    except (OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise DataLossError(f"{path}: corrupted {kind} stream ({exc})") from None
    finally:
        fh.close()


def _records(path, fh, chunk, file_size, check_crc):
    buf, offset, at_eof = b"", 0, False  # `offset`: the stream position of buf[0]
    while True:
        more = fh.read(chunk)
        at_eof = not more
        buf += more
        out, used = _split(path, buf, offset, at_eof, file_size, check_crc)
        if out:
            yield out
        buf, offset = buf[used:], offset + used
        if at_eof:
            if buf:
                raise DataLossError(f"truncated record at {offset} in file {path}")
            return


def _split(path, buf, offset, at_eof, file_size, check_crc):
    """The whole records at the start of `buf` and the number of bytes they take."""
    records, headers, header_crcs, data_crcs = [], [], [], []
    pos, n = 0, len(buf)
    while n - pos >= 12:
        length = int.from_bytes(buf[pos:pos + 8], "little")
        header_crc = int.from_bytes(buf[pos + 8:pos + 12], "little")
        if (file_size is not None and length > file_size - offset - pos - 16) or \
                (n - pos < 16 + length and at_eof):
            if check_crc:
                _check_headers(path, offset, [buf[pos:pos + 8]], [header_crc], [pos])
            raise DataLossError(f"truncated record at {offset + pos} in file {path}: it declares "
                                f"{length} bytes, more than the file holds")
        if n - pos < 16 + length:
            break
        if check_crc:
            headers.append(buf[pos:pos + 8])
            header_crcs.append(header_crc)
            data_crcs.append(int.from_bytes(buf[pos + 12 + length:pos + 16 + length], "little"))
        records.append((pos, buf[pos + 12:pos + 12 + length]))
        pos += 16 + length
    if check_crc and records:
        _check_headers(path, offset, headers, header_crcs, [p for p, _ in records])
        data = [r for _, r in records]
        bad = np.flatnonzero(_mask(crc32c_many(data)) != np.asarray(data_crcs, np.uint32))
        if bad.size:
            raise DataLossError(f"corrupted record at {offset + records[bad[0]][0]} in file "
                                f"{path}: the data's CRC does not match")
    return [r for _, r in records], pos


def _check_headers(path, offset, headers, crcs, positions):
    if not headers:
        return
    bad = np.flatnonzero(_mask(crc32c_many(headers)) != np.asarray(crcs, np.uint32))
    if bad.size:
        raise DataLossError(f"corrupted record at {offset + positions[bad[0]]} in file {path}: "
                            f"the length's CRC does not match")


@export("io.tf_record_iterator")
def tf_record_iterator(path, options=None) -> Iterator[bytes]:
    """The records of the TFRecord file `path`, one bytes string each (TF1's reader)."""
    for records in read_records(os.fsdecode(path), _compression(options, "options")):
        yield from records
