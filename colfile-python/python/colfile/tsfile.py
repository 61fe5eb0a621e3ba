"""The official ``tsfile`` package's reading API, served by colfile.

For code written against Apache TsFile's Python package: ``TsFileReader(path)`` with
``query_table`` / ``query_table_on_tree`` returning a result set (``read_arrow_batch``,
``read_data_frame``, ``next`` and ``get_value_by_name``/``_by_index``), and
``to_dataframe`` with the official signature. As there, ``time`` is an ``int64`` column.
Tag filters may be the official ``tsfile`` filter objects (``tag_eq``, ``&``, ``|``,
``~`` …), a mapping ``{tag: value}`` or a colfile filter expression.

>>> from colfile.tsfile import TsFileReader
>>> with TsFileReader("weather.tsfile") as r:            # doctest: +SKIP
...     rs = r.query_table("weather", ["city", "temp"], batch_size=1024)
...     t = rs.read_arrow_batch()
"""

import os
from typing import Any, Dict, Iterator, List, Optional, Union

import pyarrow as pa

from . import _colfile
from .errors import InvalidArgumentError

__all__ = ["TsFileReader", "ResultSet", "to_dataframe"]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def _quote(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


_OPS = {0: "=", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">="}


def _filter_text(f: Any) -> str:
    """An official ``tsfile`` tag filter object as a colfile filter expression."""
    name = type(f).__name__
    if name == "ComparisonTagFilter":
        if f.op in _OPS:
            return f"{f.column_name} {_OPS[f.op]} {_quote(f.value)}"
        if f.op == 8:
            return f"{f.column_name} is null"
        if f.op == 9:
            return f"not {f.column_name} is null"
        raise InvalidArgumentError(f"tag filter {f!r}: regular expressions are not supported")
    if name == "BetweenTagFilter":
        text = f"({f.column_name} >= {_quote(f.lower)} and {f.column_name} <= {_quote(f.upper)})"
        return f"not {text}" if f.is_not else text
    if name == "AndTagFilter":
        return f"({_filter_text(f.left)}) and ({_filter_text(f.right)})"
    if name == "OrTagFilter":
        return f"({_filter_text(f.left)}) or ({_filter_text(f.right)})"
    if name == "NotTagFilter":
        return f"not ({_filter_text(f.filter)})"
    raise InvalidArgumentError(f"tag filter of type {name}: not a tsfile tag filter")


def _int64_time(t: Union[pa.Table, pa.RecordBatch]):
    """``time`` as int64, as the official package returns it (a view, not a copy)."""
    i = t.schema.get_field_index("time")
    if i < 0 or not pa.types.is_timestamp(t.schema.field(i).type):
        return t
    return t.set_column(i, pa.field("time", pa.int64(), False), t.column(i).cast(pa.int64()))


class ResultSet:
    """The rows of one query, read in Arrow batches or row by row."""

    def __init__(self, batches: Any, batch_size: int):
        self._batches = batches
        self._batch_size = batch_size
        self._pending: Optional[pa.Table] = None
        self._row_table: Optional[pa.Table] = None
        self._row = -1
        self._closed = False

    def _next_table(self) -> Optional[pa.Table]:
        if self._closed:
            return None
        for batch in self._batches:
            if batch.num_rows:
                return _int64_time(pa.Table.from_batches([batch]))
        return None

    def read_arrow_batch(self) -> Optional[pa.Table]:
        """The next batch of rows as a ``pyarrow.Table``; ``None`` at the end."""
        if self._pending is not None:
            t, self._pending = self._pending, None
            return t
        return self._next_table()

    def read_arrow_record_batch(self) -> Optional[pa.RecordBatch]:
        """The next batch of rows as a ``pyarrow.RecordBatch``; ``None`` at the end."""
        t = self.read_arrow_batch()
        if t is None:
            return None
        return t.combine_chunks().to_batches()[0] if t.num_rows else None

    def read_data_frame(self, max_row_num: int = 1024):
        """Up to ``max_row_num`` rows as a pandas DataFrame (empty at the end)."""
        parts: List[pa.Table] = []
        rows = 0
        while rows < max_row_num:
            t = self.read_arrow_batch()
            if t is None:
                break
            take = min(t.num_rows, max_row_num - rows)
            parts.append(t.slice(0, take))
            if take < t.num_rows:
                self._pending = t.slice(take)
            rows += take
        if not parts:
            return pa.table({}).to_pandas()
        return pa.concat_tables(parts).to_pandas()

    def next(self) -> bool:
        """Moves to the next row; ``False`` at the end."""
        self._row += 1
        while self._row_table is None or self._row >= self._row_table.num_rows:
            self._row_table = self.read_arrow_batch()
            self._row = 0
            if self._row_table is None:
                return False
        return True

    def _cell(self, column: Union[int, str]):
        if self._row_table is None:
            raise InvalidArgumentError("no current row: call next() first")
        if isinstance(column, int):
            # 1-based, as the official API: 1 is the time.
            col = self._row_table.column(column - 1)
        else:
            col = self._row_table.column(column)
        return col[self._row]

    def get_value_by_index(self, index: int):
        """The current row's value of column ``index`` (1 = time)."""
        return self._cell(index).as_py()

    def get_value_by_name(self, name: str):
        """The current row's value of column ``name``."""
        return self._cell(name).as_py()

    def is_null_by_index(self, index: int) -> bool:
        return not self._cell(index).is_valid

    def is_null_by_name(self, name: str) -> bool:
        return not self._cell(name).is_valid

    def get_metadata(self) -> pa.Schema:
        """The result's columns (time first)."""
        return _int64_time(self._batches.schema.empty_table()).schema

    def close(self) -> None:
        self._closed = True
        self._pending = None
        self._row_table = None

    def __enter__(self) -> "ResultSet":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __iter__(self) -> Iterator[pa.Table]:
        while True:
            t = self.read_arrow_batch()
            if t is None:
                return
            yield t


class TsFileReader:
    """Reads a TsFile (a path or URL) as the official ``tsfile.TsFileReader`` does."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]):
        self._path = os.fspath(path)

    def get_all_table_names(self) -> List[str]:
        """The file's tables (none in a tree-model file)."""
        return _colfile.tsfile_tables(self._path)

    def get_all_table_schemas(self) -> Dict[str, pa.Schema]:
        """Each table's columns as a ``pyarrow.Schema`` (TAG columns carry
        ``tsfile.category: TAG`` in their field metadata)."""
        out = {}
        for name in self.get_all_table_names():
            b = _colfile.tsfile_batches(self._path, table=name, limit=0)
            out[name] = _int64_time(b.schema.empty_table()).schema
        return out

    def query_table(
        self,
        table_name: str,
        column_names: List[str],
        start_time: int = _INT64_MIN,
        end_time: int = _INT64_MAX,
        tag_filter: Any = None,
        batch_size: int = 0,
    ) -> ResultSet:
        """The rows of ``table_name`` with ``start_time <= time <= end_time``: ``time``
        and ``column_names`` (TAG and FIELD columns)."""
        from . import _tag_args

        tags, text = _tag_args(tag_filter)
        size = batch_size if batch_size > 0 else 1024
        b = _colfile.tsfile_batches(
            self._path, table_name, list(column_names), start_time, end_time, text, tags,
            None, size, True,
        )
        return ResultSet(b, size)

    def query_table_on_tree(
        self,
        column_names: List[str],
        start_time: int = _INT64_MIN,
        end_time: int = _INT64_MAX,
    ) -> ResultSet:
        """The measurements ``column_names`` of every device of a tree-model file."""
        b = _colfile.tsfile_batches(
            self._path, None, list(column_names), start_time, end_time, None, [], None,
            1024, True,
        )
        return ResultSet(b, 1024)

    def close(self) -> None:
        pass

    def __enter__(self) -> "TsFileReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def to_dataframe(
    file_path: str,
    table_name: Optional[str] = None,
    column_names: Optional[List[str]] = None,
    start_time: Optional[int] = None,
    end_time: Optional[int] = None,
    max_row_num: Optional[int] = None,
    as_iterator: bool = False,
):
    """A TsFile as a pandas DataFrame (or an iterator of them), as ``tsfile.to_dataframe``:
    ``time`` is int64. Table model: ``table_name`` defaults to the first table."""
    if table_name is None:
        tables = _colfile.tsfile_tables(os.fspath(file_path))
        table_name = tables[0] if tables else None
    batches = _colfile.tsfile_batches(
        os.fspath(file_path), table_name, column_names, start_time, end_time, None, [],
        max_row_num, 65536, True, 1 if as_iterator else max(1, min(os.cpu_count() or 1, 8)),
    )
    if as_iterator:
        return (_official_frame(pa.Table.from_batches([b])) for b in batches)
    return _official_frame(batches.read_all())


def _official_frame(table: pa.Table):
    """A table as the official package's frames: int64 time, pandas' nullable integer,
    float and boolean dtypes (a null stays ``<NA>``, an integer column stays integer) and
    text as Python objects."""
    import pandas as pd

    nullable = {
        pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.float32(): pd.Float32Dtype(),
        pa.float64(): pd.Float64Dtype(),
        pa.bool_(): pd.BooleanDtype(),
    }
    frame = _int64_time(table).to_pandas(types_mapper=nullable.get)
    for f in table.schema:
        if pa.types.is_string(f.type) or pa.types.is_binary(f.type):
            frame[f.name] = frame[f.name].astype(object)  # as the official frames hold text
    return frame
