"""Key reading of the terminal prompt, on a real pipe: escape sequences are skipped whole."""

import os

import pytest

from linkwise.session.front._terminal import _line_keys, _plain, _TerminalKeys


@pytest.fixture
def pipe():
    read, write = os.pipe()
    yield read, write
    os.close(read)


def keys_from(pipe, data, gap=0.05):
    read, write = pipe
    os.write(write, data)
    os.close(write)  # the end of input reads as ''
    getchar, keys = _TerminalKeys(read, gap), []
    while key := getchar():
        keys.append(key)
    return keys


@pytest.mark.parametrize(
    "data, keys",
    [
        (b"\x1b[Ds\x1bOSd", ["s", "d"]),  # left arrow, F4 (SS3)
        (b"\x1b[15~\x1b[1;5C\x1b[200~?", ["?"]),  # F5, Ctrl+right, parameters and intermediates
        (b"\x1b\x1b[Aq\x1bsu", ["q", "u"]),  # Alt+up, Alt+s
        ("é€".encode() + b"\x04", ["é", "€", "\x04"]),  # one key per character; Ctrl+D is left to the prompt
        (b"\xffs", ["\ufffd", "s"]),  # a byte that is no UTF-8 is one unknown key
        (b"s\x1b", ["s"]),  # a lone Escape at the end
        (b"\x1b[1;5", []),  # a sequence cut short by the end of input
    ],
)
def test_escape_sequences_are_skipped_whole(pipe, data, keys):
    assert keys_from(pipe, data) == keys


def test_piped_answers_are_one_per_line(pipe):
    read, write = pipe
    os.write(write, b"s\n\n  d \r\n\xe9\nsame\n")
    os.close(write)
    with os.fdopen(os.dup(read), "rb") as stream:
        getchar = _line_keys(stream)
        assert [getchar() for _ in range(5)] == ["s", "d", "\ufffd", "same", ""]


def test_shown_text_keeps_no_control_character():
    text = _plain("a\x1b[2Jb\x9b31m\u202egnp.exe\x07")
    assert text.plain == "a�[2Jb�31m�gnp.exe�" and not text.spans
