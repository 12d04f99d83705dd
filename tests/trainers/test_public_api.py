"""trainers' public API is explicit and complete, it imports only the layers below it, and
importing it loads no optional framework (verl, rLLM, gem-llm, skyrl-gym)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import trainers
from trainers.errors import TrainerError
from trainers.factories import load_factory
from trainers.rows import task_from_row, task_row

DIR = Path(trainers.__file__).parent
MODULES = sorted(info.name for info in pkgutil.iter_modules([str(DIR)]))
OURS = {"bridge", "sim", "device", "policies", "transfer_eval", "scaleout", "trainers"}
OPTIONAL = ("verl", "rllm", "gem", "skyrl_gym", "torch")


def _imports(name: str) -> set[str]:
    tree = ast.parse((DIR / f"{name}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_a_complete_all(name: str) -> None:
    module = importlib.import_module(f"trainers.{name}")
    tree = ast.parse((DIR / f"{name}.py").read_text(encoding="utf-8"))
    public = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not node.name.startswith("_")
    }
    assert public <= set(module.__all__), (
        f"trainers.{name} leaves out {public - set(module.__all__)}"
    )
    assert all(hasattr(module, symbol) for symbol in module.__all__)


def test_the_package_exports_resolve() -> None:
    assert all(getattr(trainers, symbol) is not None for symbol in trainers.__all__)


@pytest.mark.parametrize("name", MODULES)
def test_trainers_import_only_bridge_and_policies_of_ours(name: str) -> None:
    ours = {module.split(".")[0] for module in _imports(name)} & OURS
    assert ours <= {"bridge", "policies", "trainers"}, f"trainers.{name} imports {ours}"


def test_importing_trainers_loads_no_optional_framework() -> None:
    code = (
        "import sys, trainers, trainers.verl_loop, trainers.rllm_flow, trainers.skyrl_env\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {OPTIONAL!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_rows_carry_the_task_and_bad_rows_say_what_to_do() -> None:
    from bridge.records import TaskInstance

    task = TaskInstance(task_id="settings/SetWifi-v1", seed=3, instruction="Turn Wi-Fi on.")
    assert task_from_row(task_row(task)) == task
    assert task_from_row({"extra_info": {"task": task.model_dump()}}) == task
    with pytest.raises(TrainerError, match=r"no 'task'.*task_row"):
        task_from_row({"prompt": "hi"})
    with pytest.raises(TrainerError, match="not a valid TaskInstance"):
        task_from_row({"task": "{}"})


def test_factories_load_by_name_and_fail_clearly() -> None:
    assert load_factory("trainers.rows:task_row") is task_row
    for bad, match in ((None, "no env factory"), ("nocolon", "package.module:name"),
                       ("trainers.rows:nope", "does not resolve"),
                       ("trainers.rows:__all__", "names a list")):  # fmt: skip
        with pytest.raises(TrainerError, match=match):
            load_factory(bad)


def test_make_adapter_names_the_adapters_and_rejects_bad_options() -> None:
    from policies.vlm.errors import VLMConfigError
    from trainers.rollout import make_adapter

    assert make_adapter("qwen3vl", {"scale": 1000}).scale == 1000  # type: ignore[attr-defined]
    with pytest.raises(VLMConfigError, match=r"available: .*generic"):
        make_adapter("nope")
    with pytest.raises(VLMConfigError, match="bad options"):
        make_adapter("generic", {"colour": "red"})
