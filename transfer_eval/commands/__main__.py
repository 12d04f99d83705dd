"""``python -m transfer_eval.commands``: ``mgb`` without its console script."""

from transfer_eval.commands import mgb_app

mgb_app()
