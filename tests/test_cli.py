from click.testing import CliRunner

from linkwise.cli import main


def test_datasets_lists_sizes():
    result = CliRunner().invoke(main, ["datasets"], terminal_width=200)
    assert result.exit_code == 0, result.output
    line = next(row for row in result.output.splitlines() if " iris " in row)
    assert "147" in line and " 4 " in line and " 3 " in line
    assert "optdigits389" in result.output and "pendigits389" in result.output


def test_help_lists_every_verb():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for verb in ("bench", "cluster", "datasets", "demo", "export"):
        assert verb in result.output


def test_unknown_verb_is_refused():
    result = CliRunner().invoke(main, ["frobnicate"])
    assert result.exit_code != 0 and "No such command" in result.output
