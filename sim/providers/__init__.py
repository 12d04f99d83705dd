"""Content providers of the simulated phone: app state shaped like Android's tables.

An app *declares* the providers it has on Android (:meth:`sim.app.App.providers`, e.g. the
Contacts app's ``com.android.contacts``); the settings provider is the OS's. A declaration
(:mod:`sim.providers.table`) names the columns, computes the rows from the instance state
and turns writes into state changes; the engine (:mod:`sim.providers.engine`) answers
``query`` / ``insert`` / ``update`` / ``delete`` over them in SQLite, and
:func:`~sim.providers.text.format_value` prints a value as ``content query`` does. The
virtual phone's ``content`` command and :class:`sim.android_state.SimAndroidState` both go
through this package, so they cannot disagree.
"""

from sim.providers.engine import ContentResolver, Cursor, split_uri, uri_parameters
from sim.providers.errors import ProviderError, SqlError, UnknownAuthority
from sim.providers.table import Column, Provider, ProviderContext, ProviderTable
from sim.providers.text import cell_text, format_value

__all__ = [
    "Column",
    "ContentResolver",
    "Cursor",
    "Provider",
    "ProviderContext",
    "ProviderError",
    "ProviderTable",
    "SqlError",
    "UnknownAuthority",
    "cell_text",
    "format_value",
    "split_uri",
    "uri_parameters",
]
