"""``python -m transfer_eval``: ``transfer-eval`` without its console script."""

from transfer_eval.commands import transfer_eval_app

transfer_eval_app()
