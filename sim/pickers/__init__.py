"""Date and time pickers any simulated app can open, and dates and times as text.

* :mod:`sim.pickers.formats` — dates, month titles and clock times in English and Chinese,
  12- or 24-hour as ``system.time_12_24`` says;
* :mod:`sim.pickers.date_picker` / :mod:`sim.pickers.time_picker` — the dialogs' state and
  what they show (pure functions);
* :mod:`sim.pickers.wheels` — the time picker drawn as wheels (miuix's NumberPicker, for a
  skin such as HyperOS), over the same state: what they show, how a scroll or a tap turns
  them;
* :mod:`sim.pickers.handlers` — :class:`PickerHost`, the mixin that gives an app the
  pickers' tap handlers, and the functions that open and close them;
* ``sim/templates/pickers.html`` — the ``date_picker`` / ``time_picker`` macros (and
  ``styles``) that lay the dialogs out with Android's classes and ids, and ``time_wheels``.
"""

from sim.pickers.handlers import (
    PICKER_PARAM,
    PickerHost,
    close_picker,
    open_date_picker,
    open_time_picker,
    picker_view,
)

__all__ = [
    "PICKER_PARAM",
    "PickerHost",
    "close_picker",
    "open_date_picker",
    "open_time_picker",
    "picker_view",
]
