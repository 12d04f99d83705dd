"""Task templates over the Messages app: reply, send, forward, read, mark and delete SMS.

Judged as a phone sees its SMS: Telephony's ``content://sms`` rows (``content query --uri
content://sms/sent --where "date >= T0"``). So that a task is never pre-satisfied and a
phone's own messages are never a truth:

* a task's inbox is its own: it delivers its messages from distinctive numbers
  (:class:`~bridge.spec.sms.DeliverSms`, after deleting earlier messages of those numbers),
  dated minutes before the phone's clock; the questions are about those messages;
* what the agent sends is found in ``content://sms/sent`` by recipient (phone numbers as
  Android compares them) and by being newer than the pose (truth :data:`POSED`, the phone's
  clock when posed: a phone's earlier sends stay, and never count);
* every SMS row is watched for side effects (``read`` included: opening a thread marks it
  read, so only the threads a task opens may change).

A phone's shell cannot write SMS (its ``WRITE_SMS`` app-op is ignored) and a retail phone
has no ``su``: every task that delivers messages :data:`NEEDS_INBOX` (the simulator and the
virtual phone only). Tasks that only send could be judged on a real phone (the shell reads
SMS), but a real send reaches a real number and costs money: they :data:`NEEDS_TEST_NUMBER`
until a user-configured test number is wired. Questions are in
:mod:`sim.apps.messages.query_tasks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Annotated, Any

from bridge.android_contract import SMS, SMS_INBOX, SMS_SENT, sql_text
from bridge.plans import (
    FinishStep,
    KeyStep,
    LongPressStep,
    OpenAppStep,
    Plan,
    Selector,
    TapStep,
    TypeStep,
)
from bridge.spec.base import TruthRef
from bridge.spec.clock import ClockFact
from bridge.spec.contacts import EnsureContact
from bridge.spec.rows import RowsCheck, RowsFact, RowsSelector, WatchedRows
from bridge.spec.sms import DeliverSms, InboundSms
from bridge.taskspec import CheckRule, EnsureOp, Requirement, Truth
from sim.apps.messages.app import MessagesApp
from sim.tasks.base import P, TaskTemplate, WrongPlan
from sim.tasks.params import Choice, NoParams, TaskParams

__all__ = [
    "INBOX",
    "NEEDS_INBOX",
    "NEEDS_TEST_NUMBER",
    "POSED",
    "SMS_WATCH",
    "TEMPLATES",
    "MessagesTask",
    "messages_text",
    "new_chat",
    "open_thread",
    "reply_plan",
    "row",
    "sent_checks",
    "to_number",
]

SMS_WATCH = WatchedRows(
    uri=SMS, projection=["_id", "thread_id", "address", "type", "read", "body", "date"]
)
"""Every SMS row, diffed for side effects (``read`` changes when a thread is opened)."""
POSED = Truth(name="posed", fact=ClockFact())
"""The phone's clock when posed: a message the agent sends is at least as new."""
NEEDS_INBOX = Requirement(
    fact="the task's own SMS in the inbox (content://sms, delivered by the judge)",
    reason="a phone's shell cannot write SMS (its WRITE_SMS app-op is ignored, so `content "
    "insert` of content://sms writes nothing) and a retail phone has no su: only the "
    "simulator and the virtual phone (su 0 content insert) can be made to receive them",
)
NEEDS_TEST_NUMBER = Requirement(
    fact="a test number of the user's to send SMS to",
    reason="a real SMS reaches a real number and costs money: such a task pairs only with a "
    "user-configured test number (not wired yet)",
)

INBOX = (
    InboundSms(address="10690088123", minutes_ago=35,
               body="【丰巢】您的快递已存入望京SOHO T1丰巢柜，取件码 583027，请在24小时内取件。"),
    InboundSms(address="+8617712345601", minutes_ago=22, body="晚上的羽毛球还去吗？场地我订好了。"),
    InboundSms(address="+8618612345602", minutes_ago=12,
               body="Hi, this is Dr. Lin's office. Please confirm your appointment on Thursday "
                    "at 3 pm."),
    InboundSms(address="106980095566", minutes_ago=6,
               body="【中国银行】您的验证码为 740215，用于网上银行登录，5分钟内有效。"),
    InboundSms(address="+8613312345603", minutes_ago=50, read=True,
               body="Package for you at the front desk, pick up before 6."),
)  # fmt: skip
"""The inbox a task delivers: four unread messages (the newest from the bank) and a read one."""
_UNREAD = tuple(m.address for m in INBOX if not m.read)
REPLIES = ("好的，马上到", "Thanks, see you then!", "收到", "Confirmed, thank you.", "晚点回你")
"""What a task asks to reply (none is a seeded message's text)."""


# ---------------------------------------------------------------- words and plans


@cache
def _strings(lang: str) -> Mapping[str, str]:
    return MessagesApp().strings(lang)


def messages_text(key: str, lang: str, **values: object) -> str:
    """A Messages UI string as the phone shows it in ``lang``."""
    text = _strings(lang)[key]
    return text.format(**values) if values else text


def row(name: str) -> Selector:
    """The conversation-list row (or search result) of ``name``."""
    return Selector(resource_id="conversation_name", text=name)


def open_thread(name: str) -> Plan:
    """Open Messages and the conversation shown as ``name``."""
    return [OpenAppStep(app="messages"), TapStep(on=row(name))]


def reply_plan(text: str) -> Plan:
    """Type ``text`` in the open thread's compose box and send it."""
    return [
        TypeStep(text=text, into=Selector(resource_id="compose_message_text")),
        TapStep(on=Selector(resource_id="send_message_button")),
    ]


def new_chat(number: str) -> Plan:
    """From the conversation list: Start chat, the number typed, Enter."""
    return [
        TapStep(on=Selector(resource_id="start_new_conversation_button")),
        TypeStep(text=number, into=Selector(resource_id="recipient_text_view"), submit=True),
    ]


# ---------------------------------------------------------------- spec helpers


def _from(address: str) -> str:
    return f"address={sql_text(address)}"


def to_number(number: str) -> str:
    """The ``--where`` of the SMS rows whose address is ``number`` however it is spaced or
    prefixed (its last 8 digits, spaces and dashes dropped)."""
    digits = "".join(ch for ch in number if ch.isdigit())[-8:]
    return f"replace(replace(address, ' ', ''), '-', '') LIKE '%{digits}'"


def sent_checks(
    to: str | TruthRef, body: str | TruthRef, who: str | None = None
) -> list[RowsCheck]:
    """Two checks: an SMS went to ``to`` since the pose, and one since then says ``body``
    (to ``to`` when the text is literal)."""
    since = "date >= {truth.posed}"
    label = who or (to if isinstance(to, str) else "the recipient")
    sent = RowsCheck(name=f"an SMS sent to {label}", uri=SMS_SENT, where=since,
                     column="address", expect="any", value=to, match="number")  # fmt: skip
    if isinstance(body, str):
        says = sent.model_copy(
            update={"name": f"the SMS to {label} says it",
                    "where": f"{since} AND body={sql_text(body)}"}
        )  # fmt: skip
    else:
        says = RowsCheck(name=f"the SMS to {label} says it", uri=SMS_SENT, where=since,
                         column="body", expect="any", value=body)  # fmt: skip
    return [sent, says]


class MessagesTask(TaskTemplate[P]):
    """A task over Messages: its inbox delivered first (:meth:`inbox`), SMS rows watched,
    the pose time read as truth ``posed``."""

    apps: tuple[str, ...] = ("messages",)
    watch: tuple[WatchedRows, ...] = (SMS_WATCH,)

    def inbox(self, p: P) -> Sequence[InboundSms]:
        """The messages this instance delivers (none: the phone's own inbox)."""
        return INBOX

    def posing(self, p: P) -> list[EnsureOp]:
        """Ensure operations before the messages are delivered."""
        return []

    def ensure(self, p: P) -> list[EnsureOp]:
        """:meth:`posing`, then the task's messages."""
        messages = list(self.inbox(p))
        return [*self.posing(p), *([DeliverSms(messages=messages)] if messages else [])]

    def truths(self, p: P) -> list[Truth]:
        """When the task was posed."""
        return [POSED]

    def requires(self, p: P) -> list[Requirement]:
        """A delivered inbox needs the simulator or the virtual phone."""
        return [NEEDS_INBOX] if self.inbox(p) else []


# ---------------------------------------------------------------- replying


class Reply(TaskParams):
    """Reply ``reply`` to the seeded sender ``sender``."""

    sender: Annotated[str, Choice(_UNREAD)]
    reply: Annotated[str, Choice(REPLIES)]


class ReplyToSender(MessagesTask[Reply]):
    """Reply to one sender of the task's inbox. A phone judges by ``content query`` of
    ``content://sms/sent``: a message to that number since the pose, with exactly that text."""

    id = "messages/ReplyToSender-v1"
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'Reply "{reply}" to the SMS from {sender}.',
        "zh": "回复来自 {sender} 的短信：“{reply}”。",
    }
    Params = Reply

    def goal(self, p: Reply) -> list[CheckRule]:
        return list(sent_checks(p.sender, p.reply))

    def expected_rows(self, p: Reply) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(p.sender))]

    def oracle(self, p: Reply, lang: str) -> Plan:
        return [*open_thread(p.sender), *reply_plan(p.reply), FinishStep()]


_FRIENDS = (("Olivia Grant", "+8617712345621", "Are you free for lunch on Friday?"),
            ("周岚", "+8617712345622", "我到小区门口了，你下来吧。"),
            ("Marco Rossi", "+8617712345623", "Did you get the tickets for Saturday?"))  # fmt: skip


class ContactReply(TaskParams):
    """Reply ``reply`` to a contact's message (``name``; ``number`` and ``text`` derived)."""

    name: Annotated[str, Choice(tuple(f[0] for f in _FRIENDS))]
    reply: Annotated[str, Choice(REPLIES)]
    number: str
    text: str


class ReplyToContact(MessagesTask[ContactReply]):
    """Reply to a message from a contact, shown by name. The contact is ensured (with the
    number the message comes from); a phone judges as :class:`ReplyToSender`, by number."""

    id = "messages/ReplyToContact-v1"
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'Reply "{reply}" to the message from {name}.',
        "zh": "回复{name}发来的短信：“{reply}”。",
    }
    Params = ContactReply

    def derive(self, sampled: Mapping[str, Any], world: Any) -> dict[str, Any]:
        _, number, text = next(f for f in _FRIENDS if f[0] == sampled["name"])
        return {"number": number, "text": text}

    def inbox(self, p: ContactReply) -> Sequence[InboundSms]:
        return [*INBOX, InboundSms(address=p.number, body=p.text, minutes_ago=3)]

    def posing(self, p: ContactReply) -> list[EnsureOp]:
        return [EnsureContact(name=p.name, phones=[p.number])]

    def goal(self, p: ContactReply) -> list[CheckRule]:
        return list(sent_checks(p.number, p.reply, who=p.name))

    def expected_rows(self, p: ContactReply) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(p.number))]

    def oracle(self, p: ContactReply, lang: str) -> Plan:
        return [*open_thread(p.name), *reply_plan(p.reply), FinishStep()]


class LatestReply(TaskParams):
    """Reply ``reply`` to the newest unread message."""

    reply: Annotated[str, Choice(REPLIES)]


class ReplyToLatestUnread(MessagesTask[LatestReply]):
    """Reply to the newest unread SMS. The target is the phone's own: truth ``latest`` is the
    sender of the newest ``read=0`` row of ``content://sms/inbox``; the reply is judged as
    :class:`ReplyToSender` against that number."""

    id = "messages/ReplyToLatestUnread-v1"
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'Find my most recent unread SMS and reply "{reply}".',
        "zh": "找到最新的一条未读短信，并回复“{reply}”。",
    }
    Params = LatestReply

    def truths(self, p: LatestReply) -> list[Truth]:
        latest = RowsFact(uri=SMS_INBOX, where="read=0", column="address", sort="date DESC")
        return [POSED, Truth(name="latest", fact=latest, reduce="first")]

    def goal(self, p: LatestReply) -> list[CheckRule]:
        return list(sent_checks(TruthRef(truth="latest"), p.reply))

    def expected_rows(self, p: LatestReply) -> list[RowsSelector]:
        senders = ",".join(sql_text(a) for a in _UNREAD)
        return [RowsSelector(uri=SMS, where=f"address IN ({senders})")]

    def oracle(self, p: LatestReply, lang: str) -> Plan:
        newest = max((m for m in INBOX if not m.read), key=lambda m: -m.minutes_ago)
        return [*open_thread(newest.address), *reply_plan(p.reply), FinishStep()]


_TOPICS: dict[str, tuple[InboundSms, ...]] = {
    "会议": (
        InboundSms(address="+8617712345611", minutes_ago=40,
                   body="明天上午十点的会议改到2号会议室。"),
        InboundSms(address="+8617712345612", minutes_ago=18, body="会议纪要我发你邮箱了，记得看。"),
    ),
    "refund": (
        InboundSms(address="+8617712345614", minutes_ago=33,
                   body="Your refund of ¥128 has been processed."),
        InboundSms(address="+8617712345615", minutes_ago=9,
                   body="Refund request received, we will reply within 2 days."),
    ),
}  # fmt: skip
_CHATTER = (
    InboundSms(address="+8617712345613", minutes_ago=27, body="周六聚餐定在海底捞，六点。"),
    InboundSms(address="+8617712345616", minutes_ago=14, body="Happy birthday! Have a great one."),
)


class KeywordReply(TaskParams):
    """Reply ``reply`` to everyone whose SMS mentions ``keyword``."""

    keyword: Annotated[str, Choice(tuple(_TOPICS))]
    reply: Annotated[str, Choice(("收到", "Got it, thanks", "好的，已了解"))]


class ReplyByKeyword(MessagesTask[KeywordReply]):
    """Reply to every sender whose message mentions a word (two of six senders). A phone
    judges each of them as :class:`ReplyToSender`; replying to anyone else is a side effect."""

    id = "messages/ReplyByKeyword-v1"
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Reply "{reply}" to everyone whose SMS mentions "{keyword}".',
        "zh": "给所有短信中提到“{keyword}”的人回复“{reply}”。",
    }
    Params = KeywordReply

    def inbox(self, p: KeywordReply) -> Sequence[InboundSms]:
        return [*_CHATTER, *(m for messages in _TOPICS.values() for m in messages)]

    def goal(self, p: KeywordReply) -> list[CheckRule]:
        return [check for m in _TOPICS[p.keyword] for check in sent_checks(m.address, p.reply)]

    def expected_rows(self, p: KeywordReply) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(m.address)) for m in _TOPICS[p.keyword]]

    def oracle(self, p: KeywordReply, lang: str) -> Plan:
        plan: Plan = [
            OpenAppStep(app="messages"),
            TapStep(on=Selector(resource_id="action_search_messages")),
            TypeStep(text=p.keyword, into=Selector(resource_id="search_src_text"), submit=True),
        ]
        for index, message in enumerate(_TOPICS[p.keyword]):
            back = [KeyStep(key="back")] * 2 if index else []  # the keyboard, then the thread
            plan += [*back, TapStep(on=row(message.address))]
            plan += reply_plan(p.reply)
        return [*plan, FinishStep()]


# ---------------------------------------------------------------- sending


_NUMBERS = ("+8617712345691", "+8617712345692", "13912340093")
"""Numbers a task sends to (no seeded sender, no contact)."""
_TEXTS = ("我晚上七点到", "Running 10 minutes late, sorry!", "明天见", "Call me when you land.")


class NewMessage(TaskParams):
    """Send ``text`` to ``number``."""

    number: Annotated[str, Choice(_NUMBERS)]
    text: Annotated[str, Choice(_TEXTS)]


class SendNewMessage(MessagesTask[NewMessage]):
    """Start a conversation with a number. A phone judges by ``content://sms/sent``: a
    message to that number since the pose with exactly that text."""

    id = "messages/SendNewMessage-v1"
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'Send an SMS to {number} saying "{text}".',
        "zh": "给 {number} 发一条短信：“{text}”。",
    }
    Params = NewMessage

    def inbox(self, p: NewMessage) -> Sequence[InboundSms]:
        return ()

    def requires(self, p: NewMessage) -> list[Requirement]:
        return [NEEDS_TEST_NUMBER]

    def goal(self, p: NewMessage) -> list[CheckRule]:
        return list(sent_checks(p.number, p.text))

    def expected_rows(self, p: NewMessage) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(p.number))]

    def oracle(self, p: NewMessage, lang: str) -> Plan:
        return [OpenAppStep(app="messages"), *new_chat(p.number), *reply_plan(p.text),
                FinishStep()]  # fmt: skip


class Forward(TaskParams):
    """Forward the message from ``sender`` to ``number``."""

    sender: Annotated[str, Choice(("+8618612345602", "10690088123", "+8613312345603"))]
    number: Annotated[str, Choice(_NUMBERS)]
    body: str


class ForwardMessage(MessagesTask[Forward]):
    """Pass a message's text on to another number. The text is the phone's own (truth
    ``body``: the newest message from the sender); a phone judges the send as
    :class:`SendNewMessage` with that text."""

    id = "messages/ForwardMessage-v1"
    level = "L2"
    kind = "hybrid"
    instructions = {
        "en": "Forward the SMS from {sender} to {number}: send {number} the same text.",
        "zh": "把 {sender} 发来的短信转发给 {number}（发送相同的内容）。",
    }
    Params = Forward

    def derive(self, sampled: Mapping[str, Any], world: Any) -> dict[str, Any]:
        return {"body": next(m.body for m in INBOX if m.address == sampled["sender"])}

    def requires(self, p: Forward) -> list[Requirement]:
        return [NEEDS_INBOX, NEEDS_TEST_NUMBER]

    def truths(self, p: Forward) -> list[Truth]:
        body = RowsFact(uri=SMS_INBOX, where=_from(p.sender), column="body", sort="date DESC")
        return [POSED, Truth(name="body", fact=body, reduce="first")]

    def goal(self, p: Forward) -> list[CheckRule]:
        return list(sent_checks(p.number, TruthRef(truth="body")))

    def expected_rows(self, p: Forward) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(p.sender)),
                RowsSelector(uri=SMS, where=to_number(p.number))]  # fmt: skip

    def oracle(self, p: Forward, lang: str) -> Plan:
        return [*open_thread(p.sender), KeyStep(key="back"), *new_chat(p.number),
                *reply_plan(p.body), FinishStep()]  # fmt: skip


# ---------------------------------------------------------------- reading, marking, deleting


def _all_read(address: str) -> RowsCheck:
    return RowsCheck(name=f"the SMS from {address} read", uri=SMS_INBOX, where=_from(address),
                     column="read", expect="all", value=1)  # fmt: skip


class MarkAllRead(MessagesTask[NoParams]):
    """Mark every conversation read. A phone judges by ``content://sms/inbox``: each of the
    task's senders has no unread message, and no ``read=0`` row is left at all."""

    id = "messages/MarkAllRead-v1"
    level = "L1"
    kind = "operate"
    instructions = {
        "en": "Mark all my SMS conversations as read.",
        "zh": "把所有短信对话标为已读。",
    }

    def goal(self, p: NoParams) -> list[CheckRule]:
        none_left = RowsCheck(name="no unread SMS", uri=SMS_INBOX, where="read=0",
                              expect="count", value=0)  # fmt: skip
        return [*(_all_read(address) for address in _UNREAD), none_left]

    def expected_rows(self, p: NoParams) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where="type=1")]

    def oracle(self, p: NoParams, lang: str) -> Plan:
        return [
            OpenAppStep(app="messages"),
            TapStep(on=Selector(resource_id="action_overflow")),
            TapStep(on=Selector(text=messages_text("mark_all_read", lang))),
            FinishStep(),
        ]


class Sender(TaskParams):
    """One sender of the task's inbox."""

    sender: Annotated[str, Choice(_UNREAD)]


class OpenConversation(MessagesTask[Sender]):
    """Open a conversation and read it. A phone sees it in ``content://sms/inbox``: every
    message from the sender is read (only that thread may change)."""

    id = "messages/OpenConversation-v1"
    level = "L1"
    kind = "operate"
    instructions = {
        "en": "Open and read the SMS conversation with {sender}.",
        "zh": "打开并阅读与 {sender} 的短信对话。",
    }
    Params = Sender

    def goal(self, p: Sender) -> list[CheckRule]:
        return [_all_read(p.sender)]

    def expected_rows(self, p: Sender) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(p.sender))]

    def oracle(self, p: Sender, lang: str) -> Plan:
        return [*open_thread(p.sender), FinishStep()]


class ReadSender(TaskParams):
    """A sender of the task's inbox whose message this instance delivers already read."""

    sender: Annotated[str, Choice(tuple(m.address for m in INBOX))]


class MarkConversationUnread(MessagesTask[ReadSender]):
    """Mark a read conversation unread (without opening it, which would read it again). A
    phone judges by ``content://sms/inbox``: a message from the sender is ``read=0``."""

    id = "messages/MarkConversationUnread-v1"
    level = "L1"
    kind = "operate"
    instructions = {
        "en": "Mark the SMS conversation with {sender} as unread.",
        "zh": "把与 {sender} 的短信对话标为未读。",
    }
    Params = ReadSender

    def inbox(self, p: ReadSender) -> Sequence[InboundSms]:
        return [m.model_copy(update={"read": True}) if m.address == p.sender else m for m in INBOX]

    def goal(self, p: ReadSender) -> list[CheckRule]:
        return [RowsCheck(name=f"an SMS from {p.sender} unread", uri=SMS_INBOX,
                          where=_from(p.sender), column="read", expect="any", value=0)]  # fmt: skip

    def expected_rows(self, p: ReadSender) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(p.sender))]

    def oracle(self, p: ReadSender, lang: str) -> Plan:
        return [
            OpenAppStep(app="messages"),
            LongPressStep(on=row(p.sender)),
            TapStep(on=Selector(resource_id="action_mark_unread")),
            FinishStep(),
        ]


_PAIRS = (("10690088123", "+8617712345601"), ("+8618612345602", "+8613312345603"),
          ("+8617712345601", "106980095566"))  # fmt: skip


class Pair(TaskParams):
    """Two senders of the task's inbox whose conversations go."""

    pair: Annotated[tuple[str, str], Choice(_PAIRS)]


class DeleteConversations(MessagesTask[Pair]):
    """Delete two conversations (select both, delete once). A phone judges by ``content
    query --uri content://sms``: no message from or to either number is left, and (a guard)
    the task's other conversations are all there."""

    id = "messages/DeleteConversations-v1"
    level = "L2"
    kind = "operate"
    instructions = {
        "en": "Delete my SMS conversations with {first} and {second}.",
        "zh": "删除与 {first} 和 {second} 的短信对话。",
    }
    Params = Pair

    def _others(self, p: Pair) -> str:
        others = [m.address for m in INBOX if m.address not in p.pair]
        return "address IN (" + ",".join(sql_text(a) for a in others) + ")"

    def truths(self, p: Pair) -> list[Truth]:
        kept = RowsFact(uri=SMS, where=self._others(p), column="_id")
        return [POSED, Truth(name="kept", fact=kept, reduce="count")]

    def goal(self, p: Pair) -> list[CheckRule]:
        gone = [RowsCheck(name=f"conversation with {a} deleted", uri=SMS, where=_from(a),
                          expect="count", value=0) for a in p.pair]  # fmt: skip
        kept = RowsCheck(name="the other conversations kept", uri=SMS, where=self._others(p),
                         expect="count", value=TruthRef(truth="kept"), guard=True)  # fmt: skip
        return [*gone, kept]

    def expected_rows(self, p: Pair) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(a)) for a in p.pair]

    def text_values(self, p: Pair, lang: str) -> dict[str, Any]:
        return {"first": p.pair[0], "second": p.pair[1]}

    def oracle(self, p: Pair, lang: str) -> Plan:
        return [
            OpenAppStep(app="messages"),
            LongPressStep(on=row(p.pair[0])),
            TapStep(on=row(p.pair[1])),
            TapStep(on=Selector(resource_id="action_delete")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (
    ReplyToSender(),
    ReplyToContact(),
    ReplyToLatestUnread(),
    ReplyByKeyword(),
    SendNewMessage(),
    ForwardMessage(),
    MarkAllRead(),
    OpenConversation(),
    MarkConversationUnread(),
    DeleteConversations(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# Another reply, one of two senders, the wrong conversation.


def _option_after(options: tuple[Any, ...], value: Any) -> Any:
    return options[(options.index(value) + 1) % len(options)]


def _reply_wrong(name: str, text: str) -> Plan:
    return [*open_thread(name), *reply_plan(text), FinishStep()]


_BODIES = {m.address: m.body for m in INBOX}

WRONG: dict[str, WrongPlan] = {
    "messages/ReplyToSender-v1": lambda p, lang, w: _reply_wrong(
        p["sender"], _option_after(REPLIES, p["reply"])
    ),
    "messages/ReplyToContact-v1": lambda p, lang, w: _reply_wrong(
        p["name"], _option_after(REPLIES, p["reply"])
    ),
    "messages/ReplyToLatestUnread-v1": lambda p, lang, w: _reply_wrong(
        "106980095566", _option_after(REPLIES, p["reply"])
    ),
    "messages/ReplyByKeyword-v1": lambda p, lang, w: [  # the second sender forgotten
        *ReplyByKeyword().oracle(KeywordReply.model_validate(p), lang)[:6],
        FinishStep(),
    ],
    "messages/SendNewMessage-v1": lambda p, lang, w: [
        OpenAppStep(app="messages"),
        *new_chat(p["number"]),
        *reply_plan(p["text"] + "!"),
        FinishStep(),
    ],
    "messages/ForwardMessage-v1": lambda p, lang, w: [
        OpenAppStep(app="messages"),
        *new_chat(p["number"]),
        *reply_plan(next(b for a, b in _BODIES.items() if a != p["sender"])),
        FinishStep(),
    ],
    "messages/MarkAllRead-v1": lambda p, lang, w: [  # one conversation only
        OpenAppStep(app="messages"),
        LongPressStep(on=row(_UNREAD[0])),
        TapStep(on=Selector(resource_id="action_mark_read")),
        FinishStep(),
    ],
    "messages/OpenConversation-v1": lambda p, lang, w: [
        *open_thread(_option_after(tuple(_UNREAD), p["sender"])),
        FinishStep(),
    ],
    "messages/MarkConversationUnread-v1": lambda p, lang, w: [
        OpenAppStep(app="messages"),
        LongPressStep(on=row(_UNREAD[0])),
        TapStep(on=Selector(resource_id="action_mark_read")),
        FinishStep(),
    ],
    "messages/DeleteConversations-v1": lambda p, lang, w: [
        OpenAppStep(app="messages"),
        LongPressStep(on=row(p["pair"][0])),
        TapStep(on=row(next(a for a in _UNREAD if a not in p["pair"]))),
        TapStep(on=Selector(resource_id="action_delete")),
        TapStep(on=Selector(resource_id="button1")),
        FinishStep(),
    ],
}
