"""The Contacts app: a list with favourites and search, a contact card, an editor."""

from sim.apps.contacts.app import ContactsApp

__all__ = ["ContactsApp"]
