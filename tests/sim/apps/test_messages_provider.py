"""The ``sms`` and ``mms-sms`` providers of the simulated Messages app, without a browser:
Android's columns and views, one thread per recipient, writes through the model, and the
shell's writes dropped as a phone drops them."""

from __future__ import annotations

import pytest

from bridge.android_contract import SMS, SMS_CONVERSATIONS, SMS_INBOX, SMS_SENT
from sim.apps.messages import model
from sim.phone import Phone
from sim.providers import ContentResolver, ProviderError
from sim.state import InstanceState


@pytest.fixture
def resolver(phone: Phone) -> ContentResolver:
    return ContentResolver(phone)


def test_the_columns_are_androids_in_order(resolver: ContentResolver) -> None:
    cursor = resolver.query(InstanceState(seed=0), f"{SMS}/1")
    assert cursor.columns == model.COLUMNS
    row = dict(zip(cursor.columns, cursor.rows[0], strict=True))
    assert row["address"] == "95588" and row["type"] == 1 and row["status"] == -1


def test_inbox_and_sent_are_views_by_type(resolver: ContentResolver) -> None:
    state = InstanceState(seed=0)
    every = resolver.query(state, SMS, ["_id"]).rows
    inbox = resolver.query(state, SMS_INBOX, ["type"]).rows
    sent = resolver.query(state, SMS_SENT, ["type"]).rows
    assert {t for (t,) in inbox} == {1} and {t for (t,) in sent} == {2}
    assert len(inbox) + len(sent) == len(every)


def test_one_thread_per_recipient_however_it_is_written(resolver: ContentResolver) -> None:
    state = InstanceState(seed=0)
    resolver.insert(state, SMS, {"address": "138 0013 8000", "body": "hi", "type": 2})
    resolver.insert(state, SMS, {"address": "008613800138000", "body": "again"})
    threads = resolver.query(state, SMS, ["thread_id"], "body IN ('hi', 'again')").rows
    (zhang,) = {
        t for (t,) in resolver.query(state, SMS, ["thread_id"], "address='+8613800138000'").rows
    }
    assert {t for (t,) in threads} == {zhang}


def test_a_deleted_thread_is_gone_and_its_id_never_reused(resolver: ContentResolver) -> None:
    state = InstanceState(seed=0)
    (old,) = {t for (t,) in resolver.query(state, SMS, ["thread_id"], "address='95588'").rows}
    assert resolver.delete(state, SMS, "address='95588'") == 1
    resolver.insert(state, SMS, {"address": "95588", "body": "new bill"})
    (new,) = {t for (t,) in resolver.query(state, SMS, ["thread_id"], "address='95588'").rows}
    assert new != old and new > max(
        t for (t,) in resolver.query(state, SMS, ["thread_id"]).rows if t != new
    )


def test_writes_are_checked(resolver: ContentResolver) -> None:
    state = InstanceState(seed=0)
    with pytest.raises(ProviderError, match="address is required"):
        resolver.insert(state, SMS, {"body": "to nobody"})
    with pytest.raises(ProviderError, match="no column named"):
        resolver.insert(state, SMS, {"address": "1", "colour": "red"})
    with pytest.raises(ProviderError, match="use content://sms"):
        resolver.insert(state, SMS_INBOX, {"address": "1", "body": "x"})
    with pytest.raises(ProviderError, match="cannot be updated"):
        resolver.update(state, SMS, {"address": "2"}, "_id=1")
    assert resolver.update(state, SMS, {"read": 0}, "address='95588'") == 1
    assert resolver.query(state, f"{SMS}/1", ["read"]).rows == [(0,)]


def test_conversations_summarise_threads(resolver: ContentResolver) -> None:
    state = InstanceState(seed=0)
    rows = resolver.query(state, f"{SMS_CONVERSATIONS}?simple=true",
                          ["_id", "message_count", "read"], sort="date DESC").rows  # fmt: skip
    unread = [r for r in rows if r[2] == 0]
    assert len(unread) == 5 and rows[0] == (11, 1, 0)  # the cloud bill, 09:05, unread
    zhang = next(r for r in rows if r[0] == 2)
    assert zhang[1] == 3  # both directions count
    with pytest.raises(ProviderError, match="read-only"):
        resolver.delete(state, SMS_CONVERSATIONS, None)


def test_the_shell_may_write_everything_but_sms(resolver: ContentResolver) -> None:
    may_write = resolver.shell_may_write
    assert not may_write(SMS) and not may_write(SMS_INBOX)
    assert not may_write(SMS_CONVERSATIONS)
    assert may_write("content://com.android.contacts/raw_contacts")
