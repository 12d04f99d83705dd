"""Provider failures, each carrying the Java exception Android's provider would throw.

::

    SimError
    └── ProviderError            java_class: what ``content`` prints after the provider
        ├── UnknownAuthority     no provider has this authority (IllegalStateException)
        └── SqlError             SQLite refused the where / sort / projection (SQLiteException)
"""

from __future__ import annotations

from sim.errors import SimError

__all__ = [
    "ILLEGAL_ARGUMENT",
    "SQLITE_EXCEPTION",
    "UNSUPPORTED_OPERATION",
    "ProviderError",
    "SqlError",
    "UnknownAuthority",
]

ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"
SQLITE_EXCEPTION = "android.database.sqlite.SQLiteException"
UNSUPPORTED_OPERATION = "java.lang.UnsupportedOperationException"


class ProviderError(SimError):
    """A provider call failed; ``java_class`` is what Android would have thrown."""

    def __init__(self, message: str, java_class: str = ILLEGAL_ARGUMENT) -> None:
        super().__init__(message)
        self.java_class = java_class


class UnknownAuthority(ProviderError):
    """No installed provider answers this authority (``Could not find provider: X``)."""

    def __init__(self, authority: str) -> None:
        super().__init__(f"Could not find provider: {authority}", "java.lang.IllegalStateException")
        self.authority = authority


class SqlError(ProviderError):
    """SQLite rejected the statement (syntax, no such column, unbound ``?``)."""

    def __init__(self, message: str, java_class: str = SQLITE_EXCEPTION) -> None:
        super().__init__(message, java_class)
