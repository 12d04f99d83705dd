"""The Messages templates without a browser: a task's inbox is its own and posing twice
leaves one copy, truths are read from the phone (the newest unread sender, a code, who sent
more), near misses get partial credit, and only the send-only question of a phone's own
inbox runs on a retail phone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from bridge.android_contract import SMS, SMS_INBOX, sql_text
from bridge.judge import StartRecord, judge, pose, read_truth
from bridge.schema import AnswerValue, Verdict
from bridge.taskspec import TaskSpec
from sim.android_state import SimAndroidState
from sim.phone import Phone
from sim.providers import ContentResolver
from sim.state import InstanceState
from sim.sync_call import complete
from sim.tasks.params import sample_params
from sim.tasks.registry import default_registry

REGISTRY = default_registry()
MESSAGES_IDS = [task_id for task_id in REGISTRY.ids() if task_id.startswith("messages/")]
World = Mapping[str, Mapping[str, Any]]


@dataclass
class Posed:
    """A Messages task posed on a simulated phone; the agent's acts go through the provider
    as the Messages app (the default SMS app) writes them."""

    params: dict[str, Any]
    spec: TaskSpec
    android: SimAndroidState
    start: StartRecord

    def verdict(self, answer: Mapping[str, AnswerValue] | None = None) -> Verdict:
        return complete(judge(self.spec, self.android, self.start, answer=answer))

    def truth(self, name: str) -> Any:
        return self.start.truths[name][0]

    @property
    def resolver(self) -> ContentResolver:
        return self.android.resolver

    def send(self, address: str, body: str) -> None:
        values = {"address": address, "body": body, "type": 2, "read": 1,
                  "date": self.android.state.os.clock_ms + 60_000}  # fmt: skip
        self.resolver.insert(self.android.state, SMS, values)

    def rows(self, where: str) -> list[dict[str, str | None]]:
        return complete(self.android.query(SMS, ["_id", "address", "read", "type"], where))


def _pose(
    phone: Phone, world: World, task_id: str, state: InstanceState | None = None, **fixed: Any
) -> Posed:
    template = REGISTRY.get(task_id)
    typed = template.bind({**sample_params(template.Params, 0, world), **fixed}, world)
    spec = template.spec(typed, "en")
    android = SimAndroidState(phone, state or InstanceState(seed=0))
    return Posed(typed.model_dump(mode="json"), spec, android, complete(pose(spec, android)))


def _passed(verdict: Verdict) -> list[bool]:
    return [check.passed for check in verdict.checks]


def test_a_reply_needs_the_number_and_the_words(phone: Phone, world: World) -> None:
    posed = _pose(phone, world, "messages/ReplyToSender-v1", sender="+8617712345601",
                  reply="收到")  # fmt: skip
    posed.send("+86 177 1234 5601", "收到了")  # the right person, other words
    near = posed.verdict()
    assert _passed(near) == [True, False] and near.progress == 0.5 and near.clean
    posed.send("17712345601", "收到")  # written without the country code: the same number
    assert posed.verdict().success
    posed.send("+8617712345602", "收到")  # somebody else too: a side effect
    assert posed.verdict().clean is False


def test_a_send_before_the_pose_never_counts(phone: Phone, world: World) -> None:
    state = InstanceState(seed=0)
    earlier = {"address": "+8617712345691", "body": "明天见", "type": 2,
               "date": state.os.clock_ms - 60_000}  # fmt: skip
    ContentResolver(phone).insert(state, SMS, earlier)
    posed = _pose(phone, world, "messages/SendNewMessage-v1", state, number="+8617712345691",
                  text="明天见")  # fmt: skip
    assert not any(_passed(posed.verdict()))
    assert [r.fact for r in posed.spec.requires] == ["a test number of the user's to send SMS to"]


def test_posing_twice_leaves_one_copy_of_the_task_inbox(phone: Phone, world: World) -> None:
    first = _pose(phone, world, "messages/ReplyToSender-v1")
    first.send("+8617712345601", "an earlier attempt")
    again = _pose(phone, world, "messages/ReplyToSender-v1", state=first.android.state)
    rows = again.rows("address='+8617712345601'")
    assert [(r["type"], r["read"]) for r in rows] == [("1", "0")]  # the earlier reply is gone


def test_the_latest_unread_is_the_phones_own(phone: Phone, world: World) -> None:
    posed = _pose(phone, world, "messages/ReplyToLatestUnread-v1")
    assert posed.truth("latest") == "106980095566"
    state = posed.android.state
    later = {"address": "+8613012345678", "body": "newer", "date": state.os.clock_ms}
    ContentResolver(phone).insert(state, SMS, later)
    reposed = _pose(phone, world, "messages/ReplyToLatestUnread-v1", state=state)
    assert reposed.truth("latest") == "+8613012345678"


def test_replying_to_one_of_two_keyword_senders_is_half_done(phone: Phone, world: World) -> None:
    posed = _pose(phone, world, "messages/ReplyByKeyword-v1", keyword="refund",
                  reply="收到")  # fmt: skip
    posed.send("+8617712345614", "收到")
    assert _passed(posed.verdict()) == [True, True, False, False]
    posed.send("+8617712345615", "收到")
    assert posed.verdict().success


def test_marking_read_counts_each_conversation(phone: Phone, world: World) -> None:
    posed = _pose(phone, world, "messages/MarkAllRead-v1")
    posed.resolver.update(posed.android.state, SMS, {"read": 1}, "address='10690088123'")
    near = posed.verdict()
    assert near.progress == 0.2 and near.clean
    posed.resolver.update(posed.android.state, SMS, {"read": 1, "seen": 1}, "read=0")
    assert posed.verdict().success


def test_deleting_a_third_conversation_breaks_the_guard(phone: Phone, world: World) -> None:
    pair = ["10690088123", "+8617712345601"]
    posed = _pose(phone, world, "messages/DeleteConversations-v1", pair=pair)
    for address in (pair[0], "+8618612345602"):
        posed.resolver.delete(posed.android.state, SMS, f"address={sql_text(address)}")
    near = posed.verdict()
    assert _passed(near) == [True, False, False] and near.progress == 0.5


def test_question_truths_are_read_from_the_phone(phone: Phone, world: World) -> None:
    code = _pose(phone, world, "messages/QueryCode-v1", sender="10690088123")
    assert code.start.truths["code"] == ["583027"]
    assert code.verdict({"code": "583027"}).success and not code.verdict({"code": "740215"}).success
    busier = _pose(phone, world, "messages/CompareSenderCounts-v1", first_more=False)
    assert busier.start.truths["sender"] == ["95566"]
    ContentResolver(phone).insert(busier.android.state, SMS, {"address": "95533", "body": "+1"})
    tie = complete(read_truth(busier.android, busier.spec.truths[0]))
    assert sorted(tie) == ["95533", "95566"]  # three each: either answer is right


def test_unread_conversations_are_counted_on_the_phones_own_inbox(
    phone: Phone, world: World
) -> None:
    posed = _pose(phone, world, "messages/CountUnreadConversations-v1")
    assert posed.truth("count") == 5 and not posed.spec.requires and not posed.spec.ensure[2:]
    posed.resolver.update(posed.android.state, SMS_INBOX, {"read": 1}, "address='95555'")
    assert _pose(phone, world, "messages/CountUnreadConversations-v1",
                 state=posed.android.state).truth("count") == 4  # fmt: skip


@pytest.mark.parametrize("task_id", MESSAGES_IDS)
def test_specs_survive_json_and_declare_what_a_phone_lacks(world: World, task_id: str) -> None:
    for seed, lang in ((0, "en"), (1, "zh")):
        task = REGISTRY.instantiate(task_id, seed, lang)
        assert task.spec is not None
        assert TaskSpec.model_validate_json(task.spec.model_dump_json()) == task.spec
        delivers = any(op.op == "deliver_sms" for op in task.spec.ensure)
        needs_inbox = any("inbox" in r.fact for r in task.spec.requires)
        assert delivers == needs_inbox, task_id
