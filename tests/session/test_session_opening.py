"""One way to open a session: ``open_session`` on a data file is the session ``linkwise cluster`` opens on it."""

import numpy as np
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession, open_session
from linkwise.session.core._open import resolve_session
from tests.products import products_csv


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_open_session_on_a_file_is_the_session_the_command_line_opens(tmp_path, seed):
    path, _ = products_csv(tmp_path, n=120, seed=seed)
    from_python = open_session(tmp_path / "python.db", path)
    ran = CliRunner().invoke(main, ["cluster", str(path), "--session", str(tmp_path / "cli.db"), "--ui", "terminal"],
                             input="q\n")
    assert ran.exit_code == 0, ran.output
    from_cli = HumanSession(tmp_path / "cli.db", resolve_session(tmp_path / "cli.db").dataset)
    for session in (from_python, from_cli):  # the ids and the text detected, the command line's method
        assert session.data.options["id_column"] == "sku" and session.data.options["text_column"] == "description"
        assert type(session.estimator) is lw.Auto
        assert session.state().n_clusters > 1  # Auto's clustering before any answer, not one cluster
    np.testing.assert_array_equal(from_python.data.X, from_cli.data.X)
    assert list(from_python.data.ids) == list(from_cli.data.ids)
    from_python.close()
    from_cli.close()
    again = open_session(tmp_path / "python.db")  # resumed from the file alone: the same columns and method
    assert again.data.options["text_column"] == "description" and type(again.estimator) is lw.Auto
    again.close()


def test_columns_given_to_a_session_with_nothing_answered_are_chosen_afresh(iris_file, tmp_path):
    data_path, _ = iris_file
    first = resolve_session(tmp_path / "s.db", data_path)
    assert not first.stored and first.fresh and first.dataset.options["id_column"] == "name"
    assert first.detected.startswith("Detected:")
    HumanSession(tmp_path / "s.db", first.dataset, lw.COBRAS(random_state=0)).close()
    kept = resolve_session(tmp_path / "s.db")  # the stored data file and options, nothing detected again
    assert kept.stored and not kept.fresh and kept.detected == "" and kept.dataset.options["id_column"] == "name"
    chosen = resolve_session(tmp_path / "s.db", data_path, features=["sepal_length", "petal_length"])
    assert chosen.fresh and chosen.dataset.X.shape[1] == 2


def test_resolving_a_file_with_no_session_and_no_data_says_so_in_one_line(tmp_path):
    with pytest.raises(lw.exceptions.InvalidParameterError, match="no session in .* give the 'data'") as refused:
        resolve_session(tmp_path / "none.db")
    assert "\n" not in str(refused.value)
