"""Parsing a command line the way Android's ``/system/bin/sh`` (mksh) would, in miniature.

Supported: words with ``'single'``, ``"double"`` and ``\\`` quoting; parameters ``$?``,
``$$``, ``$NAME``, ``${NAME}`` (expanded when the command runs, never inside single quotes);
``VAR=value`` prefixes; lists with ``;``, ``&`` (the and-or list before it runs in the
background: :attr:`AndOr.background`), newlines, ``&&`` and ``||``; pipelines ``a | b``;
redirections ``>``, ``>>``, ``<``, ``N>``, ``N>>``, ``N>&M``, ``>&N``, ``&>``; ``#``
comments. Not supported (a :class:`ShellSyntaxError` says so): command substitution,
subshells and groups, here-documents, globbing, control flow (``if``/``for``/``while``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from device.virtual.errors import ShellSyntaxError

__all__ = [
    "AndOr",
    "Command",
    "Param",
    "Redirect",
    "Word",
    "parse",
]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SPECIAL_PARAMS = "?$#!0123456789@*-"
_RESERVED = {
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "while",
    "until",
    "do",
    "done",
    "case",
    "esac",
    "function",
    "{",
    "}",
    "[[",
    "]]",
}


@dataclass(frozen=True)
class Param:
    """A parameter reference (``$?``, ``$HOME``) to expand when the command runs."""

    name: str


@dataclass
class Word:
    """One shell word: literal text and parameters; ``quoted`` keeps ``""`` as an argument."""

    parts: list[str | Param] = field(default_factory=list)
    quoted: bool = False

    def literal(self) -> str | None:
        """The text if the word has no parameters and no quotes (for operators, fds)."""
        if self.quoted or any(isinstance(p, Param) for p in self.parts):
            return None
        return "".join(p for p in self.parts if isinstance(p, str))

    def add(self, text: str) -> None:
        """Append literal text."""
        if self.parts and isinstance(self.parts[-1], str):
            self.parts[-1] += text
        else:
            self.parts.append(text)


@dataclass(frozen=True)
class Redirect:
    """``fd op target``: op is ``>``, ``>>``, ``<`` or ``>&`` (target is then an fd)."""

    fd: int
    op: str
    target: Word


@dataclass
class Command:
    """A simple command: assignments, words and redirections."""

    assignments: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


Pipeline = list[Command]


@dataclass
class AndOr:
    """``p1 && p2 || p3``: the first pipeline, then (operator, pipeline) pairs."""

    first: Pipeline
    rest: list[tuple[str, Pipeline]] = field(default_factory=list)
    background: bool = False
    """Followed by ``&``: run as a background job (``$!`` is its pid)."""


_ORDINARY = re.compile(r"[^ \t;&|\n<>()'\"\\$`]+")
"""Characters that only extend the current word outside quotes."""
_QUOTED_ORDINARY = re.compile(r'[^"\\$`]+')
"""Characters that only extend the current word inside double quotes."""
_Token = tuple[str, "Word | str"]  # ("word", Word) | ("op", ";") | ("redir", "2>")


class _Lexer:
    """Splits a line into words, operators and redirection operators."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.tokens: list[_Token] = []
        self.word: Word | None = None

    def run(self) -> list[_Token]:
        while self.pos < len(self.text):
            self._step(self.text[self.pos])
        self._end_word()
        return self.tokens

    def _step(self, ch: str) -> None:
        if ch in " \t":
            self._end_word()
            self.pos += 1
        elif ch == "#" and self.word is None:
            end = self.text.find("\n", self.pos)
            self.pos = len(self.text) if end < 0 else end
        elif ch in ";&|\n<>()":
            self._operator(ch)
        elif ch == "'":
            self._single_quoted()
        elif ch == '"':
            self._double_quoted()
        elif ch == "\\":
            self._escape()
        elif ch == "$":
            self._dollar(self._current())
        elif ch == "`":
            raise ShellSyntaxError("command substitution (`…`) is not supported")
        else:  # a run of ordinary characters at once ('#' is literal inside a word)
            run = _ORDINARY.match(self.text, self.pos)
            self.pos = run.end() if run else self.pos + 1
            self._current().add(run.group() if run else ch)

    def _current(self) -> Word:
        if self.word is None:
            self.word = Word()
        return self.word

    def _end_word(self) -> None:
        if self.word is not None:
            self.tokens.append(("word", self.word))
            self.word = None

    def _operator(self, ch: str) -> None:
        text, pos = self.text, self.pos
        if ch in "()":
            raise ShellSyntaxError(f"subshells and groups ('{ch}') are not supported")
        if ch in "<>":
            self._redirect(ch)
            return
        two = text[pos : pos + 2]
        if two == "&>":
            self._end_word()
            self.tokens.append(("redir", "&>"))
            self.pos += 2
            return
        op = two if two in ("&&", "||", ";;") else ch
        if op == ";;":
            raise ShellSyntaxError("';;' is only valid in case statements")
        self._end_word()
        self.tokens.append(("op", op))
        self.pos += len(op)

    def _redirect(self, ch: str) -> None:
        fd = ""
        if self.word is not None:
            literal = self.word.literal()
            if literal is not None and literal.isdigit():
                fd, self.word = literal, None
        self._end_word()
        op = ch
        nxt = self.text[self.pos + 1 : self.pos + 2]
        if nxt == ">" and ch == ">":
            op = ">>"
        elif nxt == "&":
            op = ch + "&"
        elif nxt == "<" and ch == "<":
            raise ShellSyntaxError("here-documents (<<) are not supported")
        self.pos += len(op)
        self.tokens.append(("redir", fd + op))

    def _single_quoted(self) -> None:
        end = self.text.find("'", self.pos + 1)
        if end < 0:
            raise ShellSyntaxError("unterminated single quote")
        word = self._current()
        word.quoted = True
        word.add(self.text[self.pos + 1 : end])
        self.pos = end + 1

    def _double_quoted(self) -> None:
        word = self._current()
        word.quoted = True
        self.pos += 1
        while True:
            if self.pos >= len(self.text):
                raise ShellSyntaxError("unterminated double quote")
            ch = self.text[self.pos]
            if ch == '"':
                self.pos += 1
                return
            if ch == "\\" and self.text[self.pos + 1 : self.pos + 2] in ('"', "\\", "$", "`"):
                word.add(self.text[self.pos + 1])
                self.pos += 2
            elif ch == "\\" and self.text[self.pos + 1 : self.pos + 2] == "\n":
                self.pos += 2
            elif ch == "$":
                self._dollar(word)
            elif ch == "`":
                raise ShellSyntaxError("command substitution (`…`) is not supported")
            else:  # a run of characters with no meaning inside double quotes
                run = _QUOTED_ORDINARY.match(self.text, self.pos)
                self.pos = run.end() if run else self.pos + 1
                word.add(run.group() if run else ch)

    def _escape(self) -> None:
        nxt = self.text[self.pos + 1 : self.pos + 2]
        if nxt == "\n":
            self.pos += 2
            return
        word = self._current()
        word.quoted = word.quoted or bool(nxt)
        word.add(nxt or "\\")  # a backslash that ends the line stands for itself
        self.pos += 2

    def _dollar(self, word: Word) -> None:
        rest = self.text[self.pos + 1 :]
        if rest.startswith("("):
            raise ShellSyntaxError("command substitution $(…) is not supported")
        if rest.startswith("{"):
            end = rest.find("}")
            name = rest[1:end] if end > 0 else ""
            if not (_NAME.fullmatch(name) or (len(name) == 1 and name in _SPECIAL_PARAMS)):
                raise ShellSyntaxError(f"unsupported parameter expansion ${{{name}…}}")
            word.parts.append(Param(name))
            self.pos += end + 2
            return
        match = _NAME.match(rest)
        if match:
            word.parts.append(Param(match.group()))
            self.pos += 1 + match.end()
        elif rest[:1] and rest[0] in _SPECIAL_PARAMS:
            word.parts.append(Param(rest[0]))
            self.pos += 2
        else:
            word.add("$")
            self.pos += 1


def _split_redirect(op: str) -> tuple[int, str]:
    digits = "".join(ch for ch in op if ch.isdigit())
    symbol = op[len(digits) :]
    default = 0 if symbol.startswith("<") else 1
    return (int(digits) if digits else default), symbol


class _Parser:
    """Turns tokens into :class:`AndOr` lists."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def parse(self) -> list[AndOr]:
        lists: list[AndOr] = []
        separated = True  # no list yet, or the last one already has its ';' / '&' / newline
        while self.pos < len(self.tokens):
            op = self._peek_op()
            if op == "\n":
                self.pos += 1
                separated = True
                continue
            if op in (";", "&"):
                if separated:
                    raise ShellSyntaxError(f"syntax error: '{op}' unexpected")
                lists[-1].background = op == "&"
                self.pos += 1
                separated = True
                continue
            lists.append(self._and_or())
            separated = False
        return lists

    def _peek_op(self) -> str | None:
        if self.pos < len(self.tokens) and self.tokens[self.pos][0] == "op":
            return str(self.tokens[self.pos][1])
        return None

    def _and_or(self) -> AndOr:
        node = AndOr(self._pipeline())
        while self._peek_op() in ("&&", "||"):
            op = str(self.tokens[self.pos][1])
            self.pos += 1
            while self._peek_op() == "\n":
                self.pos += 1
            node.rest.append((op, self._pipeline()))
        return node

    def _pipeline(self) -> Pipeline:
        commands = [self._command()]
        while self._peek_op() == "|":
            self.pos += 1
            commands.append(self._command())
        return commands

    def _command(self) -> Command:
        command = Command()
        while self.pos < len(self.tokens):
            kind, value = self.tokens[self.pos]
            if kind == "op":
                break
            self.pos += 1
            if kind == "redir":
                command.redirects.append(self._redirect(str(value)))
            elif isinstance(value, Word):  # a "word" token
                self._word(command, value)
        if not command.words and not command.assignments and not command.redirects:
            found = self._peek_op() or "end of line"
            raise ShellSyntaxError(f"syntax error: '{found}' unexpected")
        return command

    def _word(self, command: Command, word: Word) -> None:
        first = word.parts[0] if word.parts else None
        if not command.words and isinstance(first, str) and _ASSIGNMENT.match(first):
            name, _, value = first.partition("=")
            command.assignments.append((name, Word([value, *word.parts[1:]], True)))
            return
        if not command.words and word.literal() in _RESERVED:
            raise ShellSyntaxError(f"shell keyword '{word.literal()}' is not supported")
        command.words.append(word)

    def _redirect(self, op: str) -> Redirect:
        target = self.tokens[self.pos][1] if self.pos < len(self.tokens) else None
        if not isinstance(target, Word):  # only a "word" token holds a Word
            raise ShellSyntaxError(f"syntax error: redirection '{op}' needs a target")
        self.pos += 1
        if op == "&>":
            return Redirect(-1, ">", target)
        fd, symbol = _split_redirect(op)
        return Redirect(fd, symbol, target)


def parse(text: str) -> list[AndOr]:
    """Parse a command line into and-or lists (run one after the other).

    Raises:
        ShellSyntaxError: unsupported or invalid syntax (the message names it).
    """
    return _Parser(_Lexer(text).run()).parse()
