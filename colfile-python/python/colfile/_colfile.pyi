"""Type stubs of the native module (``colfile._colfile``); use the functions of ``colfile``."""

from typing import Dict, Iterator, List, Optional, Tuple

import pyarrow as pa

__version__: str

class Batches(Iterator[pa.RecordBatch]):
    """The record batches of a read; ``schema`` is every batch's."""

    @property
    def schema(self) -> pa.Schema: ...
    def __iter__(self) -> "Batches": ...
    def __next__(self) -> pa.RecordBatch: ...
    def read_all(self) -> pa.Table: ...

def tsfile_batches(
    location: str,
    table: Optional[str] = None,
    columns: Optional[List[str]] = None,
    start: Optional[int] = None,
    end: Optional[int] = None,
    filter: Optional[str] = None,
    tags: List[Tuple[str, str]] = ...,
    limit: Optional[int] = None,
    batch_size: int = 65536,
    mods: bool = True,
    threads: int = 1,
) -> Batches: ...
def rcfile_batches(
    location: str,
    schema: str,
    serde: str = "binary",
    columns: Optional[List[str]] = None,
    limit: Optional[int] = None,
    batch_size: int = 65536,
    timestamp_unit: str = "ns",
    serde_properties: Optional[Dict[str, str]] = None,
    time_zone: Optional[str] = None,
    calendar: Optional[str] = None,
) -> Batches: ...
def tsfile_tables(location: str) -> List[str]: ...
def write_tsfile(
    path: str,
    data: object,
    table: Optional[str] = None,
    tags: List[str] = ...,
    time_column: str = "time",
    encodings: Dict[str, str] = ...,
    compression: Optional[str] = None,
    aligned: bool = False,
    threads: int = 1,
) -> Dict[str, int]: ...
def write_rcfile(
    path: str,
    data: object,
    schema: Optional[str] = None,
    serde: str = "binary",
    codec: Optional[str] = None,
    serde_properties: Optional[Dict[str, str]] = None,
    time_zone: Optional[str] = None,
    calendar: Optional[str] = None,
    threads: int = 1,
) -> Dict[str, int]: ...
