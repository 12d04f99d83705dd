"""A bound spec needs no template code: it is judged in a process where ``sim`` cannot be
imported, over an AndroidState that knows nothing of the simulator."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from sim.tasks.registry import default_registry

_SCRIPT = textwrap.dedent(
    '''
    import asyncio, importlib.abc, json, sys

    class NoSim(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "sim" or name.startswith("sim."):
                raise ImportError("sim must not be needed to judge a bound spec")
            return None

    sys.meta_path.insert(0, NoSim())
    from bridge.judge import judge, pose
    from bridge.taskspec import TaskSpec

    class Settings:
        """Settings only, printed as Android prints them."""

        def __init__(self):
            self.values = {"global": {"wifi_on": "1"}, "system": {}, "secure": {}}

        async def get_setting(self, namespace, key):
            return self.values[namespace].get(key)

        async def put_setting(self, namespace, key, value):
            self.values[namespace][key] = value

        async def list_settings(self, namespace):
            return dict(self.values[namespace])

    async def main():
        spec = TaskSpec.model_validate_json(sys.stdin.read())
        state = Settings()
        start = await pose(spec, state)
        before = await judge(spec, state, start)
        await state.put_setting("global", "wifi_on", "1" if spec.checks[0].value == 1 else "0")
        after = await judge(spec, state, start)
        await state.put_setting("global", "bluetooth_on", "1")
        unclean = await judge(spec, state, start)
        print(json.dumps([before.success, after.success, after.clean, unclean.side_effects,
                          any(m == "sim" or m.startswith("sim.") for m in sys.modules)]))

    asyncio.run(main())
    '''
)


def test_a_bound_spec_is_judged_where_sim_cannot_be_imported() -> None:
    task = default_registry().instantiate("settings/SetWifi-v1", 4, "zh")
    assert task.spec is not None
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        input=task.spec.model_dump_json(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    before, after, clean, side_effects, imported_sim = json.loads(done.stdout)
    assert (before, after, clean) == (False, True, True)
    assert side_effects == ["global.bluetooth_on"] and imported_sim is False
