"""Hive RCFile and Apache TsFile as pyarrow tables and pandas frames.

Reading and writing run in Rust (the ``colfile`` crate) with the GIL released; Arrow
data crosses into pyarrow through the Arrow C data interface, without copying column
buffers. Locations are local paths, directories (every file in them, in name order) or
object-store URLs (``s3://``, ``gs://``, ``az://``, ``http(s)://``; a URL ending in ``/``
is a prefix), with credentials and endpoint from the standard environment variables
(``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``,
``AWS_ALLOW_HTTP``, and the Google and Azure equivalents).

>>> import colfile
>>> table = colfile.read_tsfile("weather.tsfile", columns=["temp"])   # doctest: +SKIP
>>> frame = colfile.read_rcfile("part-0.rc", "id:int,name:string").to_pandas()  # doctest: +SKIP

Errors are :class:`colfile.errors.ColfileError` subclasses that say where in the file the
failure happened (``file``, ``offset``, ``row_group``, ``chunk``, ``page``, …).
"""

import os
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Union

import pyarrow as pa

from . import _colfile
from .errors import (
    ColfileError,
    ColfileIOError,
    CorruptFileError,
    InvalidArgumentError,
    LimitExceededError,
    SchemaError,
    UnsupportedError,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__version__ = _colfile.__version__

__all__ = [
    "read_tsfile",
    "read_tsfile_batches",
    "read_rcfile",
    "read_rcfile_batches",
    "read_tsfile_pandas",
    "read_rcfile_pandas",
    "write_tsfile",
    "write_rcfile",
    "ColfileError",
    "ColfileIOError",
    "CorruptFileError",
    "InvalidArgumentError",
    "LimitExceededError",
    "SchemaError",
    "UnsupportedError",
]

PathLike = Union[str, "os.PathLike[str]"]
#: A tag filter: ``{"region": "eu"}`` (each tag equal to its value), a filter expression
#: such as ``"region = 'eu' and id != 'd1'"`` (TAG and FIELD columns; ``= != < <= > >=``,
#: ``is null``, ``and``, ``or``, ``not``, parentheses), or a ``tsfile.tag_filter`` object of
#: the official package.
TagFilter = Union[Mapping[str, str], str, Any]

_BATCH_ROWS = 65536


def _threads(threads: Optional[int]) -> int:
    """Threads for a whole read or a write: the machine's cores (at most 8) by default."""
    if threads is None:
        return max(1, min(os.cpu_count() or 1, 8))
    if threads < 1:
        raise InvalidArgumentError(f"threads {threads}: at least 1")
    return threads


def _location(path: PathLike) -> str:
    return os.fspath(path)


def _tag_args(tag_filter: Optional[TagFilter]):
    """Splits a tag filter into (tags, filter text) for the native reader."""
    if tag_filter is None:
        return [], None
    if isinstance(tag_filter, str):
        return [], tag_filter
    if isinstance(tag_filter, Mapping):
        return [(str(k), str(v)) for k, v in tag_filter.items()], None
    from .tsfile import _filter_text

    return [], _filter_text(tag_filter)


def read_tsfile_batches(
    path: PathLike,
    table: Optional[str] = None,
    columns: Optional[List[str]] = None,
    start: Optional[int] = None,
    end: Optional[int] = None,
    tag_filter: Optional[TagFilter] = None,
    limit: Optional[int] = None,
    *,
    batch_size: int = _BATCH_ROWS,
    mods: bool = True,
) -> pa.RecordBatchReader:
    """Streams a TsFile query as a ``pyarrow.RecordBatchReader``.

    ``path`` is a TsFile, a directory of ``.tsfile`` files (read in name order; they must
    give the same columns) or a URL. ``table`` picks a table of a table-model file (by
    default its only table); tree-model files give ``time``, ``device`` and one column per
    measurement. ``columns`` selects TAG/FIELD columns (measurements), ``start``/``end``
    bound the time inclusively, ``tag_filter`` keeps matching rows, and ``limit`` stops
    after that many rows. IoTDB deletions in ``FILE.mods``/``FILE.mods2`` beside the file
    (local, or objects of the same store) are applied unless ``mods=False``. Time is a
    millisecond timestamp.
    """
    batches = _tsfile_batches(
        path, table, columns, start, end, tag_filter, limit, batch_size, mods, threads=1
    )
    return pa.RecordBatchReader.from_batches(batches.schema, batches)


def _tsfile_batches(path, table, columns, start, end, tag_filter, limit, batch_size, mods,
                    threads):
    """The native batches of a TsFile query, the tag filter split for the native reader."""
    tags, text = _tag_args(tag_filter)
    return _colfile.tsfile_batches(
        _location(path), table, columns, start, end, text, tags, limit, batch_size, mods,
        threads,
    )


def read_tsfile(
    path: PathLike,
    table: Optional[str] = None,
    columns: Optional[List[str]] = None,
    start: Optional[int] = None,
    end: Optional[int] = None,
    tag_filter: Optional[TagFilter] = None,
    limit: Optional[int] = None,
    *,
    mods: bool = True,
    threads: Optional[int] = None,
) -> pa.Table:
    """Reads a TsFile query as a ``pyarrow.Table`` (see :func:`read_tsfile_batches`).

    Without a ``limit``, each local file's devices are cut into groups read on ``threads``
    threads (default: the cores, at most 8); the rows come in the same order.

    >>> colfile.read_tsfile("iot.tsfile", tag_filter={"region": "r1"}).num_rows  # doctest: +SKIP
    """
    return _tsfile_batches(
        path, table, columns, start, end, tag_filter, limit, _BATCH_ROWS, mods,
        threads=_threads(threads),
    ).read_all()


def _pandas(table: pa.Table) -> "pandas.DataFrame":
    # The table is not used again: let pyarrow free each column once converted, and keep
    # columns in blocks of their own (no consolidation copy).
    return table.to_pandas(split_blocks=True, self_destruct=True)


def read_tsfile_pandas(
    path: PathLike,
    table: Optional[str] = None,
    columns: Optional[List[str]] = None,
    start: Optional[int] = None,
    end: Optional[int] = None,
    tag_filter: Optional[TagFilter] = None,
    limit: Optional[int] = None,
    *,
    mods: bool = True,
    threads: Optional[int] = None,
) -> "pandas.DataFrame":
    """:func:`read_tsfile` as a pandas DataFrame, converted without holding two copies."""
    return _pandas(
        read_tsfile(path, table, columns, start, end, tag_filter, limit, mods=mods, threads=threads)
    )


def _hive_schema(schema: Union[str, pa.Schema, Iterable[str]]) -> str:
    if isinstance(schema, str):
        return schema
    if isinstance(schema, pa.Schema):
        raise TypeError(
            "read_rcfile takes the Hive schema as text, e.g. 'id:int,name:string' "
            "(RCFiles do not store their schema)"
        )
    return ",".join(schema)


def read_rcfile_batches(
    path: PathLike,
    schema: Union[str, Iterable[str]],
    serde: str = "binary",
    columns: Optional[List[str]] = None,
    limit: Optional[int] = None,
    *,
    batch_size: int = _BATCH_ROWS,
    timestamp_unit: str = "ns",
    serde_properties: Optional[Mapping[str, str]] = None,
    time_zone: Optional[str] = None,
    calendar: Optional[str] = None,
) -> pa.RecordBatchReader:
    """Streams an RCFile (or a directory of them, or a URL) as a ``pyarrow.RecordBatchReader``.

    RCFiles do not store their schema: ``schema`` gives it as Hive types,
    ``"id:int,name:string,tags:array<string>"``. ``serde`` is ``"binary"``
    (``LazyBinaryColumnarSerDe``, Hive's default) or ``"text"`` (``ColumnarSerDe``).
    ``columns`` reads only those columns (the others are not decompressed).
    ``timestamp_unit`` (``"s"``, ``"ms"``, ``"us"``, ``"ns"``) is the unit of timestamp
    columns: nanoseconds hold Hive's precision for the years 1677 to 2262, a coarser unit
    holds every year Hive allows (years 1 to 9999) and cuts the finer digits.

    The table's serde settings: ``serde_properties`` (text serde) are Hive's
    ``SERDEPROPERTIES`` such as ``{"field.delim": "|", "serialization.null.format": ""}``;
    ``time_zone`` (``"UTC"``, the default, ``"+05:30"``, ``"America/New_York"``) and
    ``calendar`` (``"proleptic"``, the default, or ``"hybrid"``, Hive 2's Julian/Gregorian
    calendar) say how the binary serde's timestamps and dates were written.
    """
    batches = _colfile.rcfile_batches(
        _location(path), _hive_schema(schema), serde, columns, limit, batch_size, timestamp_unit,
        _props(serde_properties), time_zone, calendar,
    )
    return pa.RecordBatchReader.from_batches(batches.schema, batches)


def _props(properties: Optional[Mapping[str, str]]) -> Optional[Dict[str, str]]:
    if properties is None:
        return None
    return {str(k): str(v) for k, v in properties.items()}


def read_rcfile(
    path: PathLike,
    schema: Union[str, Iterable[str]],
    serde: str = "binary",
    columns: Optional[List[str]] = None,
    limit: Optional[int] = None,
    *,
    timestamp_unit: str = "ns",
    serde_properties: Optional[Mapping[str, str]] = None,
    time_zone: Optional[str] = None,
    calendar: Optional[str] = None,
) -> pa.Table:
    """Reads an RCFile as a ``pyarrow.Table`` (see :func:`read_rcfile_batches`)."""
    return read_rcfile_batches(
        path, schema, serde, columns, limit, timestamp_unit=timestamp_unit,
        serde_properties=serde_properties, time_zone=time_zone, calendar=calendar,
    ).read_all()


def read_rcfile_pandas(
    path: PathLike,
    schema: Union[str, Iterable[str]],
    serde: str = "binary",
    columns: Optional[List[str]] = None,
    limit: Optional[int] = None,
    *,
    timestamp_unit: str = "ns",
    serde_properties: Optional[Mapping[str, str]] = None,
    time_zone: Optional[str] = None,
    calendar: Optional[str] = None,
) -> "pandas.DataFrame":
    """:func:`read_rcfile` as a pandas DataFrame, converted without holding two copies."""
    return _pandas(read_rcfile(
        path, schema, serde, columns, limit, timestamp_unit=timestamp_unit,
        serde_properties=serde_properties, time_zone=time_zone, calendar=calendar,
    ))


_WIDEN = {
    pa.int8(): pa.int32(),
    pa.int16(): pa.int32(),
    pa.uint8(): pa.int32(),
    pa.uint16(): pa.int32(),
    pa.uint32(): pa.int64(),
    pa.float16(): pa.float32(),
}


def _arrow_data(data: Any, *, for_tsfile: bool, time_column: str = "time") -> Any:
    """Any table-like input as something with ``__arrow_c_stream__`` that colfile writes.

    pandas frames become tables (their index is dropped); large strings and binaries, and
    small or unsigned integers, are cast to the types the formats store; dictionary columns
    are decoded. For a TsFile, a timestamp time column is converted to milliseconds (what
    TsFile and IoTDB count by default, and what the readers return): a time with a finer
    part raises rather than being cut.
    """
    if type(data).__module__.startswith("pandas"):
        data = pa.Table.from_pandas(data, preserve_index=False)
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if not isinstance(data, (pa.Table, pa.RecordBatchReader)):
        if hasattr(data, "__arrow_c_stream__"):
            data = pa.RecordBatchReader.from_stream(data)
        else:
            raise TypeError(
                "data: a pyarrow Table, RecordBatch or RecordBatchReader, a pandas "
                f"DataFrame, or an object with __arrow_c_stream__; got {type(data).__name__}"
            )
    fields = []
    changed = False
    for f in data.schema:
        t = f.type
        if pa.types.is_dictionary(t):
            t = t.value_type
        if pa.types.is_large_string(t) or pa.types.is_string_view(t):
            t = pa.string()
        elif pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
            t = pa.binary()
        elif for_tsfile and t in _WIDEN:
            t = _WIDEN[t]
        elif (
            for_tsfile
            and pa.types.is_timestamp(t)
            and f.name.lower() == time_column.lower()
            and t.unit != "ms"
        ):
            t = pa.timestamp("ms", t.tz)
        changed |= t != f.type
        fields.append(f.with_type(t))
    if not changed:
        return data
    return data.cast(pa.schema(fields, metadata=data.schema.metadata))


def write_tsfile(
    path: PathLike,
    data: Any,
    table: Optional[str] = None,
    tags: Optional[List[str]] = None,
    *,
    time_column: str = "time",
    encodings: Optional[Dict[str, str]] = None,
    compression: Optional[str] = None,
    aligned: bool = False,
    threads: Optional[int] = None,
) -> Dict[str, int]:
    """Writes a pyarrow table, record batch, record-batch reader or pandas frame to a new TsFile.

    With ``table``, the rows go to that table (table model): ``time_column`` (an integer or
    millisecond count, or timestamps, converted to milliseconds) is the time, the ``tags`` columns (strings)
    are TAG columns and the rest FIELD columns. Each device's times must increase.
    ``encodings`` maps a column to an encoding (``"PLAIN"``, ``"TS_2DIFF"``, ``"GORILLA"``,
    ``"RLE"``, ``"DICTIONARY"``, …), ``compression`` is ``"LZ4"`` (the default),
    ``"SNAPPY"``, ``"GZIP"``, ``"ZSTD"``, ``"LZMA2"`` or ``"UNCOMPRESSED"``. Chunks are
    encoded on ``threads`` threads (default: the cores, at most 8); the file is the same.

    Without ``table``, the file is tree-model: ``data`` has a ``device`` column (paths such as
    ``root.sg.d1``), the time column and one column per measurement; ``aligned`` writes
    aligned devices.

    The file appears at ``path`` only once complete and synced to disk. Returns counts of
    what was written (``rows``, ``devices``, ``chunk_groups``, ``bytes``).
    """
    return _colfile.write_tsfile(
        os.fspath(path),
        _arrow_data(data, for_tsfile=True, time_column=time_column),
        table,
        list(tags or []),
        time_column,
        dict(encodings or {}),
        compression,
        aligned,
        _threads(threads),
    )


def write_rcfile(
    path: PathLike,
    data: Any,
    schema: Optional[Union[str, Iterable[str]]] = None,
    serde: str = "binary",
    codec: Optional[str] = None,
    *,
    serde_properties: Optional[Mapping[str, str]] = None,
    time_zone: Optional[str] = None,
    calendar: Optional[str] = None,
    threads: Optional[int] = None,
) -> Dict[str, int]:
    """Writes a pyarrow table, record batch, record-batch reader or pandas frame to a new RCFile.

    ``schema`` gives the Hive types (``"id:int,name:string"``); by default they follow the
    Arrow types. ``serde`` is ``"binary"`` or ``"text"``; ``codec`` is ``None`` (no
    compression), ``"deflate"``, ``"gzip"``, ``"snappy"``, ``"lz4"``, ``"zstd"`` or ``"bzip2"``
    (Hadoop's codec classes, as Hive reads them). The file appears at ``path`` only once
    complete and synced. Returns ``rows``, ``row_groups`` and ``bytes``.
    ``serde_properties``, ``time_zone`` and ``calendar`` are the table's serde settings, as
    :func:`read_rcfile_batches` takes them. A large batch's columns are encoded on
    ``threads`` threads (default: the cores, at most 8); the file is the same.
    """
    hive = None if schema is None else _hive_schema(schema)
    return _colfile.write_rcfile(
        os.fspath(path), _arrow_data(data, for_tsfile=False), hive, serde, codec,
        _props(serde_properties), time_zone, calendar, _threads(threads),
    )
