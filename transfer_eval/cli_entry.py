"""``python -m transfer_eval.cli_entry``: the transfer-eval command without the console script
(used by tests that run it as a child process)."""

from transfer_eval.cli import transfer_eval_app

if __name__ == "__main__":
    transfer_eval_app()
