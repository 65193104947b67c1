"""TFRecord files, byte for byte TensorFlow's format: each record is its length (uint64 little
endian), the masked CRC32C of the length, the data, and the masked CRC32C of the data; a file
may be GZIP- or ZLIB-compressed as a whole.

`rt.io.TFRecordWriter` and `rt.io.TFRecordOptions` write them; `read_records` reads them for
`rt.data.TFRecordDataset`, checking both CRCs (a mismatch or a truncated record is a
`rt.errors.DataLossError` naming the file and the offset). A declared length is checked against
what the file still holds before anything is allocated.
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from typing import Iterator

import numpy as np

from ..errors import DataLossError, FailedPreconditionError, NotFoundError
from ..exports import export

_UNLOADED = object()
_C_CRC = _UNLOADED  # Google's CRC-32C in C, None without it: looked up on first use (_c_crc)


def _c_crc():
    """The optional extra `tfrecord`'s CRC-32C function in C, or None (then the NumPy code
    below computes CRCs); imported on the first CRC, so that `import runtime` loads no
    third-party package."""
    global _C_CRC
    if _C_CRC is _UNLOADED:
        try:
            import google_crc32c
        except ImportError:  # pragma: no cover - depends on the environment
            google_crc32c = None
        _C_CRC = (google_crc32c.value if getattr(google_crc32c, "implementation", "") == "c"
                  else None)
    return _C_CRC


_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reflected
_MASK_DELTA = 0xA282EAD8
_ROW = 256  # bytes of a row of the block CRC (a multiple of 4)


def _gf2_times(matrix: list[int], vector: int) -> int:
    """The GF(2) matrix `matrix` (its 32 columns as ints) times the bit vector `vector`."""
    out, i = 0, 0
    while vector:
        if vector & 1:
            out ^= matrix[i]
        vector >>= 1
        i += 1
    return out


def _zero_bytes_operator(n: int) -> list[int]:
    """The linear map of a CRC register over `n` zero bytes (columns of a GF(2) matrix)."""
    one = []
    for i in range(32):
        reg = 1 << i
        for _ in range(8):
            reg = (reg >> 1) ^ (_POLY if reg & 1 else 0)
        one.append(reg)
    result, power = [1 << i for i in range(32)], one
    while n:
        if n & 1:
            result = [_gf2_times(power, c) for c in result]
        power = [_gf2_times(power, c) for c in power]
        n >>= 1
    return result


def _byte_tables(operator: list[int]) -> np.ndarray:
    """(4, 256) tables of `operator`: its value on byte j of the register is table[j][byte]."""
    columns = np.array(operator, np.uint32).reshape(4, 8)
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1
    return np.bitwise_xor.reduce(np.where(bits[None].astype(bool), columns[:, None, :],
                                          np.uint32(0)), axis=2).astype(np.uint32)


def _register_after(start: int, data: bytes, table: list[int]) -> int:
    for b in data:
        start = table[(start ^ b) & 0xFF] ^ (start >> 8)
    return start


def _start_prefix(table: list[int]) -> bytes:
    """The 4 bytes that take a zero CRC register to 0xFFFFFFFF: CRC-32C's start value, so a
    zero-started register fed these bytes and then the data holds the data's CRC."""
    basis: dict[int, tuple[int, int]] = {}
    for i in range(32):  # Gaussian elimination over GF(2) of the 4-byte map
        value, combo = _register_after(0, (1 << i).to_bytes(4, "little"), table), 1 << i
        for bit in range(31, -1, -1):
            if value >> bit & 1:
                if bit not in basis:
                    basis[bit] = (value, combo)
                    break
                value, combo = value ^ basis[bit][0], combo ^ basis[bit][1]
    target, solution = 0xFFFFFFFF, 0
    for bit in range(31, -1, -1):
        if target >> bit & 1:
            target, solution = target ^ basis[bit][0], solution ^ basis[bit][1]
    return solution.to_bytes(4, "little")


class _CrcTables:
    """The lookup tables of the CRC (built on first use): `pair_low`/`pair_high` give what the
    low/high 16 bits of a register fed a 4-byte word become; `row_shifts[k]` the byte tables of
    2**k rows of zero bytes; `prefix` see `_start_prefix`; `heads[p]`: p zeros, the prefix."""

    def __init__(self) -> None:
        byte = np.arange(256, dtype=np.uint32)
        for _ in range(8):
            byte = np.where(byte & 1, (byte >> 1) ^ np.uint32(_POLY), byte >> 1).astype(np.uint32)
        after = [byte]  # after[d][b]: byte b followed by d zero bytes
        for _ in range(3):
            after.append(byte[after[-1] & 0xFF] ^ (after[-1] >> 8))
        v = np.arange(1 << 16)
        self.pair_low = after[3][v & 0xFF] ^ after[2][v >> 8]
        self.pair_high = after[1][v & 0xFF] ^ after[0][v >> 8]
        self.prefix = _start_prefix(byte.tolist())
        zeros = bytes(_ROW) + self.prefix
        self.heads = [zeros[_ROW - pad:] for pad in range(_ROW)]  # zeros, then the prefix
        self.row_shifts: dict[int, np.ndarray] = {}

    def row_shift(self, k: int) -> np.ndarray:
        table = self.row_shifts.get(k)
        if table is None:  # threads may both build it: the same table
            table = self.row_shifts[k] = _byte_tables(_zero_bytes_operator(_ROW << k))
        return table


_TABLES: _CrcTables | None = None


def _tables() -> _CrcTables:
    global _TABLES
    if _TABLES is None:
        _TABLES = _CrcTables()
    return _TABLES


def _feed_words(register: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The CRC registers `register` (uint32, one per row of `words`) fed the little-endian
    uint32 `words` column by column, 4 bytes a step: all rows in lockstep, each step two
    lookups in 64K-entry tables."""
    t = _tables()
    c = register.copy()
    for j in range(words.shape[1]):
        c ^= words[:, j]
        if _LITTLE:
            halves = c.view(np.uint16).reshape(-1, 2)
            c = t.pair_low.take(halves[:, 0])
            c ^= t.pair_high.take(halves[:, 1])
        else:
            c = t.pair_low.take(c & 0xFFFF) ^ t.pair_high.take(c >> 16)
    return c


_LITTLE = sys.byteorder == "little"


def crc32c(data: bytes) -> int:
    """The CRC-32C (Castagnoli) of `data`."""
    return int(crc32c_many([bytes(data)])[0])


def crc32c_many(items: list[bytes]) -> np.ndarray:
    """The CRC-32C of each of `items` (uint32), all at once. Items of one short length that
    is a multiple of 4 are fed word by word; otherwise each item, after CRC-32C's start
    prefix, is zero-padded in front to whole rows of 256 bytes (zeros in front leave a
    zero-started CRC unchanged), every row's CRC is computed in lockstep, and the rows of an
    item are combined by shifting each over the rows after it (CRCs are linear). With the
    `google-crc32c` package (the extra `tfrecord`) in its C build, that computes them."""
    n = len(items)
    if not n:
        return np.zeros(0, np.uint32)
    c_crc = _C_CRC if _C_CRC is not _UNLOADED else _c_crc()
    if c_crc is not None:
        return np.fromiter(map(c_crc, items), np.uint32, n)
    lengths = np.fromiter(map(len, items), np.int64, n)
    first = int(lengths[0])
    if first <= 64 and first % 4 == 0 and (lengths == first).all():
        return _crc_of_words(np.frombuffer(b"".join(items), "<u4").reshape(n, first // 4))
    return _crc_by_rows(items, lengths)


def _crc_of_words(words: np.ndarray) -> np.ndarray:
    """The CRC-32C of each row of the uint32 matrix `words` (its little-endian bytes)."""
    start = np.full(words.shape[0], 0xFFFFFFFF, np.uint32)
    return _feed_words(start, words) ^ np.uint32(0xFFFFFFFF)


def _crc_by_rows(items: list[bytes], lengths: np.ndarray) -> np.ndarray:
    t = _tables()
    lengths = lengths + 4
    pads = -lengths % _ROW
    parts: list = [b""] * (2 * len(items))
    heads = t.heads
    parts[0::2] = [heads[pad] for pad in pads.tolist()]
    parts[1::2] = items
    words = np.frombuffer(b"".join(parts), "<u4").reshape(-1, _ROW // 4)
    rows = np.zeros(words.shape[0], np.uint32)
    step = 1 << 13  # rows in a step: the words in flight stay in the cache
    for a in range(0, rows.size, step):
        rows[a:a + step] = _feed_words(rows[a:a + step], words[a:a + step])
    counts = (lengths + pads) // _ROW
    ends = np.cumsum(counts)
    after = np.repeat(ends - 1, counts) - np.arange(rows.size)  # rows after each row
    k = 0
    while int(after.max()) >> k:
        chosen = np.flatnonzero((after >> k) & 1)
        x, s = rows[chosen], t.row_shift(k)
        rows[chosen] = s[0][x & 0xFF] ^ s[1][(x >> 8) & 0xFF] ^ s[2][(x >> 16) & 0xFF] \
            ^ s[3][x >> 24]
        k += 1
    return np.bitwise_xor.reduceat(rows, ends - counts) ^ np.uint32(0xFFFFFFFF)


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
            import gzip  # loaded with the first GZIP file: `import runtime` stays fast
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


def open_for_reading(path: str, kind: str):
    """The binary stream of the file `path`, decompressed (`kind`: "", "GZIP" or "ZLIB");
    NotFoundError when missing, FailedPreconditionError for a directory, as TensorFlow."""
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise FailedPreconditionError(f"{path}; Is a directory") from None
    if kind == "GZIP":
        import gzip  # loaded with the first GZIP file: `import runtime` stays fast
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "ZLIB":
        return _ZlibReader(raw)
    return raw


def read_records(path: str, compression_type=None, chunk: int = 1 << 22,
                 check_crc: bool = True) -> Iterator[list[bytes]]:
    """The records of the TFRecord file `path`, in lists read `chunk` bytes at a time; both
    CRCs of each record are checked (DataLossError naming the file and the offset)."""
    kind = _compression(compression_type)
    fh = open_for_reading(path, kind)
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
        out, used, error = _split(path, buf, offset, at_eof, file_size, check_crc)
        if out:
            yield out
        if error is not None:
            raise error
        buf, offset = buf[used:], offset + used
        if at_eof:
            if buf:
                raise DataLossError(f"truncated record at {offset} in file {path}")
            return


_LENGTH = struct.Struct("<Q")


def _split(path, buf, offset, at_eof, file_size, check_crc):
    """(records, bytes used, error): the whole records at the start of `buf`. The walk reads
    only the lengths; the CRCs of all the records found (and the length's CRC of a record not
    yet whole) are then checked at once. On a failure, the records before it and the
    DataLossError of the first failing record in file order, as reading one by one gives."""
    starts: list[int] = []
    pos, n = 0, len(buf)
    room = None if file_size is None else file_size - offset - 16  # the longest record at 0
    unpack = _LENGTH.unpack_from
    error = None
    append = starts.append
    while n - pos >= 12:
        end = pos + 16 + unpack(buf, pos)[0]
        if end > n:  # not whole here: more to read, or cut short
            length = end - pos - 16
            if at_eof or (room is not None and length > room - pos):
                error = DataLossError(f"truncated record at {offset + pos} in file {path}: it "
                                      f"declares {length} bytes, more than the file holds")
            break
        append(pos)
        pos = end
    records = _slices(buf, starts, pos)
    if check_crc and (starts or n - pos >= 12):
        good, crc_error = _verify(path, buf, offset, starts, pos, n - pos >= 12, records)
        if crc_error is not None:
            return records[:good], pos, crc_error
    return records, pos, error


def _slices(buf, starts, end) -> list[bytes]:
    """The data of the records at `starts`, the last ending at `end`."""
    bounds = np.array(starts + [end], np.int64)
    return [buf[a:b] for a, b in zip((bounds[:-1] + 12).tolist(), (bounds[1:] - 4).tolist())]


def _verify(path, buf, offset, starts, end, pending, records):
    """(records before the first failure, its DataLossError or None): checks both CRCs of
    the records at `starts` (data `records`, the last ending at `end`), and the length's CRC
    of the record at `end` when `pending`."""
    heads = starts + [end] if pending else starts
    data = np.frombuffer(buf, np.uint8)
    at = np.array(heads, np.int64)
    head = data[at[:, None] + np.arange(12)]
    words = np.ascontiguousarray(head).view("<u4")  # (records, 3): length, length, CRC
    header_bad = _mask(_crc_of_words(words[:, :2])) != words[:, 2]
    data_bad = np.zeros(len(heads), bool)
    if starts:
        crc_at = np.array(starts[1:] + [end], np.int64) - 4
        stored = np.ascontiguousarray(data[crc_at[:, None] + np.arange(4)]).view("<u4")[:, 0]
        data_bad[:len(starts)] = _mask(crc32c_many(records)) != stored
    bad = np.flatnonzero(header_bad | data_bad)
    if not bad.size:
        return len(starts), None
    i = int(bad[0])
    what = "the length's" if header_bad[i] else "the data's"
    return i, DataLossError(f"corrupted record at {offset + heads[i]} in file {path}: {what} "
                            f"CRC does not match")


@export("io.tf_record_iterator")
def tf_record_iterator(path, options=None) -> Iterator[bytes]:
    """The records of the TFRecord file `path`, one bytes string each (TF1's reader)."""
    for records in read_records(os.fsdecode(path), _compression(options, "options")):
        yield from records
