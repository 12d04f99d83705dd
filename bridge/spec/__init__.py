"""The task spec language, one module per Android surface.

A task template binds into a :class:`~bridge.taskspec.TaskSpec`, whose nodes each belong to
one surface of a phone. Every surface module holds its spec nodes and how each is posed
(``EnsureNode.pose``), read (``FactNode.read``) and checked (``CheckNode.evaluate``) over
:class:`~bridge.android_state.AndroidState`; :mod:`bridge.judge` dispatches to them. The
same names are the parts of each world's ``AndroidState`` (``sim/android_state/``,
``device/android_state/``).

=============  ================================================================
surface        nodes
=============  ================================================================
``settings``   put a setting, read it, compare it
``rows``       provider rows: update, delete, insert, read a column, conditions
``contacts``   a contact the task needs (rows of the contacts provider)
``calendar``   the task's own calendar and its events (rows of the calendar provider)
``sms``        inbound messages delivered as a carrier delivers them
``files``      a task's folder under ``/sdcard/Download``: seeded, read, checked
``clock``      the phone's clock and zone; times on it (``LocalTime``)
``alarms``     the next alarm clock, read and checked
``radios``     the Wi-Fi network, the paired Bluetooth devices
``props``      system properties (``getprop``)
``ui``         XPath over the episode's saved UI trees
``answers``    typed answers and the one matcher
=============  ================================================================

A new surface is one module here with the same name in each world's ``android_state``.
Four modules here have no part of their own there: ``contacts`` and ``calendar`` are
written and read through the ``rows`` part (their providers' tables), ``ui`` reads the
episode's saved trees and ``answers`` the agent's answer, neither from the phone.
"""

__all__: list[str] = []
