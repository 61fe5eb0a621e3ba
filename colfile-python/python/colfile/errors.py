"""The exceptions colfile raises: one class per kind of failure, all ``ColfileError``.

Each exception carries where the failure happened, as far as it is known (``None``
otherwise): ``file``, ``offset`` (absolute byte offset), ``row_group`` and ``column``
(RCFile), ``row``, ``series``, ``chunk`` (byte offset of the chunk header) and ``page``
(TsFile), ``section`` (a named part such as ``"key section"``), plus ``kind`` (a short
name such as ``"corrupt"`` or ``"truncated"``) and ``cause`` (the underlying error's text).
"""

from typing import Optional

__all__ = [
    "ColfileError",
    "CorruptFileError",
    "LimitExceededError",
    "UnsupportedError",
    "SchemaError",
    "InvalidArgumentError",
    "ColfileIOError",
]


class ColfileError(Exception):
    """Base class of every colfile error."""

    kind: str = "other"
    file: Optional[str] = None
    offset: Optional[int] = None
    row_group: Optional[int] = None
    column: Optional[int] = None
    row: Optional[int] = None
    section: Optional[str] = None
    series: Optional[str] = None
    chunk: Optional[int] = None
    page: Optional[int] = None
    cause: Optional[str] = None

    def __init__(self, message: str, errno: Optional[int] = None):
        super().__init__(message)
        if errno is not None:
            self.errno = errno

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class CorruptFileError(ColfileError, ValueError):
    """The bytes break the format: corrupt, truncated, or rejected by a codec."""


class LimitExceededError(ColfileError, ValueError):
    """A length or count in the file is above a configured limit."""


class UnsupportedError(ColfileError, NotImplementedError):
    """A feature of the format (or a codec) that this build does not implement."""


class SchemaError(ColfileError, ValueError):
    """A schema that cannot be parsed, or data that does not fit it."""


class InvalidArgumentError(ColfileError, ValueError):
    """An argument is invalid; nothing was read from a file."""


class ColfileIOError(ColfileError, OSError):
    """Reading or writing the file (or fetching from an object store) failed."""

    def __init__(self, message: str, errno: Optional[int] = None):
        OSError.__init__(self, message)
        self.errno = errno

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
