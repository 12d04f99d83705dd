"""The one way transfer_eval writes a page a person opens: Jinja templates from
``transfer_eval/templates/``, HTML-escaped by default, an undefined name an error."""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined, Template

__all__ = ["page_template"]


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("transfer_eval", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def page_template(name: str) -> Template:
    """The template ``transfer_eval/templates/NAME`` (loaded once)."""
    return _environment().get_template(name)
