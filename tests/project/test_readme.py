"""Every snippet of the README runs or names what exists: Python snippets run, in order, as a reader would paste them
into one interpreter; every ``linkwise`` command line of its shell blocks names a verb and options the command has,
and those that run offline in a moment (``--help``, ``--list``, ``datasets``) run.

A snippet that calls a name the library does not have (or has renamed) fails here, not in a user's notebook.
"""

import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from linkwise.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"
TEXT = README.read_text(encoding="utf-8")


def _blocks(text):
    """The fenced blocks of ``text`` as (language, content); an opening fence names its language or none."""
    blocks, language, lines = [], None, []
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            if language is None:
                language, lines = line[3:].strip(), []
            else:
                blocks.append((language, "".join(lines)))
                language = None
        elif language is not None:
            lines.append(line)
    return blocks


BLOCKS = _blocks(TEXT)
SNIPPETS = [content for language, content in BLOCKS if language == "python"]
SHELL_BLOCKS = [content for language, content in BLOCKS if language in ("bash", "")]


def _commands():
    """Each ``linkwise`` command line of the shell blocks, its continuation lines joined: a trailing backslash, or
    (in a synopsis) an indented line after it, also an indented comment."""
    commands = []
    for block in SHELL_BLOCKS:
        current = None
        for line in block.splitlines():
            if line.startswith("linkwise "):
                current = [line]
                commands.append(current)
            elif current is not None and line.startswith(" ") and line.strip():
                current.append(line)
            else:
                current = None
    return [" ".join(part.rstrip("\\").strip() for part in lines) for lines in commands]


COMMANDS = _commands()


def _command_of(words):
    """The click command a command line runs and the words that name it (a verb, and a group's subcommand)."""
    ctx = click.Context(main)
    command, named = main, []
    for word in words:
        if not isinstance(command, click.Group) or word.startswith("-"):
            break
        sub = command.get_command(ctx, word)
        if sub is None:
            break
        command, named = sub, [*named, word]
    return command, named


def test_the_readme_has_python_snippets_and_commands():
    assert len(SNIPPETS) >= 4
    assert len(COMMANDS) >= 20 and any(c.startswith("linkwise cluster --demo digits") for c in COMMANDS)


@pytest.mark.parametrize("line", COMMANDS)
def test_every_readme_command_names_a_verb_and_options_it_has(line):
    words = line.split()[1:]
    command, named = _command_of(words)
    assert named or words[0].startswith("-"), f"README: {line!r} names no linkwise verb"
    options = {"--help"} | {o for p in command.params for o in (*p.opts, *p.secondary_opts) if o.startswith("--")}
    # options in the command and in its comment: a comment that names one says what the verb takes
    mentioned = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", line))
    assert mentioned <= options, f"README: {line!r} names {sorted(mentioned - options)}, not options of {named}"


QUICK = [c for c in COMMANDS if re.match(r"linkwise (--help|datasets|bench --list)\b", c)]


@pytest.mark.parametrize("line", QUICK)
def test_the_readme_commands_that_run_offline_at_once_run(line):
    args = shlex.split(line.partition("#")[0])[1:]
    result = CliRunner().invoke(main, args, terminal_width=200)
    assert result.exit_code == 0 and result.output.strip(), f"README: {line!r}\n{result.output}"


def test_the_quick_commands_are_there():
    assert {c.split("#")[0].strip() for c in QUICK} >= {"linkwise --help", "linkwise datasets", "linkwise bench --list"}


@pytest.mark.slow
def test_every_readme_python_snippet_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # snippets may write caches (cache="lw-cache") into the working directory
    namespace = {}
    for number, code in enumerate(SNIPPETS, 1):
        try:
            exec(compile(code, f"README.md python snippet {number}", "exec"), namespace)
        except Exception as error:  # noqa: BLE001 - report which snippet broke
            pytest.fail(f"README python snippet {number} raised {type(error).__name__}: {error}\n{code}")
