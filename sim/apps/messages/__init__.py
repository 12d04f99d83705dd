"""The Messages app: conversations, threads, new conversations and search over SMS state."""

from sim.apps.messages.app import MessagesApp

__all__ = ["MessagesApp"]
