"""Questions over the Messages app: how many conversations are unread, who sent more, what
code a message holds.

Truths are read from the phone when posed (``content query``), never predicted: the unread
count from ``content://mms-sms/conversations?simple=true`` (AOSP's threads table, ``read``
0 while a thread has an unread message) — the phone's own inbox, so that question needs no
delivered messages and a real phone can judge it (the shell has ``READ_SMS``); the other two
are about the messages the task delivers (:data:`~sim.apps.messages.tasks.NEEDS_INBOX`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from bridge.android_contract import SMS, SMS_CONVERSATIONS, SMS_INBOX, sql_text
from bridge.plans import AnswerStep, KeyStep, OpenAppStep, Plan, TapStep
from bridge.spec.rows import RowsFact, RowsSelector
from bridge.spec.sms import InboundSms
from bridge.taskspec import Truth
from sim.apps.messages.model import conversations
from sim.apps.messages.tasks import INBOX, MessagesTask, open_thread, row
from sim.tasks.base import AnswerSpec, TaskTemplate, WrongPlan
from sim.tasks.params import Boolean, Choice, TaskParams

__all__ = ["TEMPLATES", "CompareSenderCounts", "CountUnreadConversations", "QueryCode"]

World = Mapping[str, Mapping[str, Any]]


class UnreadCount(TaskParams):
    """What the simulator's world predicts (the oracle's answer; the truth is the phone's)."""

    count: int


class CountUnreadConversations(MessagesTask[UnreadCount]):
    """How many conversations have unread messages, on the phone's own inbox. Truth: the
    count of ``content://mms-sms/conversations?simple=true`` rows with ``read=0``."""

    id = "messages/CountUnreadConversations-v1"
    level = "L1"
    kind = "query"
    instructions = {
        "en": "How many of my SMS conversations have unread messages?",
        "zh": "我有多少个短信对话含有未读短信？",
    }
    Params = UnreadCount
    answer_fields = (AnswerSpec("count", "number", {"en": "Unread conversations",
                                                    "zh": "未读对话数"}),)  # fmt: skip
    watch = ()

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        unread = [c for c in conversations(world.get("messages", {}), {}) if not c["read"]]
        return {"count": len(unread)}

    def inbox(self, p: UnreadCount) -> Sequence[InboundSms]:
        return ()

    def truths(self, p: UnreadCount) -> list[Truth]:
        unread = RowsFact(uri=f"{SMS_CONVERSATIONS}?simple=true", where="read=0", column="_id")
        return [Truth(name="count", fact=unread, reduce="count")]

    def oracle(self, p: UnreadCount, lang: str) -> Plan:
        return [OpenAppStep(app="messages"), AnswerStep(fields={"count": p.count})]


_BANKS = ("95533", "95566")
_BANK_TEXTS = (
    "【建设银行】您尾号0931的储蓄卡消费156.00元。",
    "【建设银行】您的账户收到转账2,000.00元。",
    "【建设银行】理财产品到期提醒：本金已转入活期。",
    "【中国银行】您尾号2264的信用卡还款成功。",
    "【中国银行】您的账户支出88.50元。",
    "【中国银行】尊敬的客户，您的积分即将过期。",
)


class Busier(TaskParams):
    """Which of the two banks sends three messages (the other sends two)."""

    first_more: Annotated[bool, Boolean()]
    busier: str


class CompareSenderCounts(MessagesTask[Busier]):
    """Which of two senders sent more messages. Truth: the most frequent ``address`` of
    the ``content://sms/inbox`` rows from the two numbers (a tie accepts both)."""

    id = "messages/CompareSenderCounts-v1"
    level = "L2"
    kind = "query"
    instructions = {
        "en": "Who has sent me more SMS messages, {first} or {second}?",
        "zh": "{first} 和 {second} 谁给我发的短信更多？",
    }
    Params = Busier
    answer_fields = (AnswerSpec("sender", "choice", {"en": "Sender", "zh": "发送方"},
                                choices=_BANKS),)  # fmt: skip

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"busier": _BANKS[0] if sampled["first_more"] else _BANKS[1]}

    def inbox(self, p: Busier) -> Sequence[InboundSms]:
        counts = (3, 2) if p.first_more else (2, 3)
        messages = []
        for bank, count, texts in zip(_BANKS, counts, (_BANK_TEXTS[:3], _BANK_TEXTS[3:]),
                                      strict=True):  # fmt: skip
            messages += [InboundSms(address=bank, body=text, minutes_ago=60 * (i + 1) + count)
                         for i, text in enumerate(texts[:count])]  # fmt: skip
        return messages

    def truths(self, p: Busier) -> list[Truth]:
        banks = ",".join(sql_text(bank) for bank in _BANKS)
        sent = RowsFact(uri=SMS_INBOX, where=f"address IN ({banks})", column="address")
        return [Truth(name="sender", fact=sent, reduce="most")]

    def expected_rows(self, p: Busier) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=f"address={sql_text(bank)}") for bank in _BANKS]

    def text_values(self, p: Busier, lang: str) -> dict[str, Any]:
        return {"first": _BANKS[0], "second": _BANKS[1]}

    def oracle(self, p: Busier, lang: str) -> Plan:
        back = KeyStep(key="back")
        return [*open_thread(_BANKS[0]), back, TapStep(on=row(_BANKS[1])), back,
                AnswerStep(fields={"sender": p.busier})]  # fmt: skip


_CODES = {m.address: m.body for m in INBOX if "码" in m.body}
_CODE = r"(?<!\d)(\d{6})(?!\d)"
"""A six-digit code (a verification or pick-up code), not part of a longer number."""


class CodeFrom(TaskParams):
    """The sender whose code is asked for, and the code (the oracle's answer)."""

    sender: Annotated[str, Choice(tuple(_CODES))]
    code: str


class QueryCode(MessagesTask[CodeFrom]):
    """What code a sender's newest message holds. Truth: the first six-digit number of the
    newest ``content://sms/inbox`` body from that number, as the phone holds it."""

    id = "messages/QueryCode-v1"
    level = "L1"
    kind = "query"
    instructions = {
        "en": "What is the code in the SMS from {sender}?",
        "zh": "{sender} 发来的短信里的验证码（或取件码）是多少？",
    }
    Params = CodeFrom
    answer_fields = (AnswerSpec("code", "text", {"en": "Code", "zh": "验证码"}),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        match = re.search(_CODE, _CODES[sampled["sender"]])
        return {"code": match.group(1) if match else ""}

    def truths(self, p: CodeFrom) -> list[Truth]:
        body = RowsFact(uri=SMS_INBOX, where=f"address={sql_text(p.sender)}", column="body",
                        sort="date DESC", extract=_CODE)  # fmt: skip
        return [Truth(name="code", fact=body, reduce="first")]

    def expected_rows(self, p: CodeFrom) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=f"address={sql_text(p.sender)}")]

    def oracle(self, p: CodeFrom, lang: str) -> Plan:
        return [*open_thread(p.sender), AnswerStep(fields={"code": p.code})]


TEMPLATES: tuple[TaskTemplate, ...] = (
    CountUnreadConversations(),
    CompareSenderCounts(),
    QueryCode(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# An answer off.

WRONG: dict[str, WrongPlan] = {
    "messages/CountUnreadConversations-v1": lambda p, lang, w: [
        OpenAppStep(app="messages"),
        AnswerStep(fields={"count": p["count"] + 1}),
    ],
    "messages/CompareSenderCounts-v1": lambda p, lang, w: [
        OpenAppStep(app="messages"),
        AnswerStep(fields={"sender": "95566" if p["busier"] == "95533" else "95533"}),
    ],
    "messages/QueryCode-v1": lambda p, lang, w: [
        *open_thread(p["sender"]),
        AnswerStep(fields={"code": "583027" if p["code"] != "583027" else "740215"}),
    ],
}
