"""A finished session's method saved (`linkwise export --model`, HumanSession.model) and new rows assigned
(`linkwise predict`)."""

import io

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession, load_data
from tests.e2e.helpers import answer_from

pytest.importorskip("skops")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".skops", ".joblib"])
def test_export_model_then_predict_new_rows(tmp_path, iris_file, suffix):
    data_path, y = iris_file
    data = load_data(data_path, id_column="name")
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    answer_from(session, y, 12)
    labels = session.labels()
    fitted = session.model()
    np.testing.assert_array_equal(fitted.labels_, labels)
    assert session.state().n_answered == 12  # the session goes on after model()
    session.close()

    model = tmp_path / f"model{suffix}"
    out = run("export", tmp_path / "s.db", "-o", tmp_path / "labels.csv", "--model", model)
    assert out.exit_code == 0, out.output
    # new rows: the session's rows shuffled, under new ids, other columns in another order
    frame = pd.read_csv(data_path).sample(frac=1.0, random_state=0)
    frame["name"] = "new-" + frame["name"]
    new = tmp_path / "new.csv"
    frame[frame.columns[::-1]].to_csv(new, index=False)
    done = run("predict", model, new, "-o", tmp_path / "new_labels.csv")
    assert done.exit_code == 0, done.output
    predicted = pd.read_csv(tmp_path / "new_labels.csv")
    assert predicted["id"].tolist() == frame["name"].tolist()
    # the same rows scaled as in the session: the saved rule gives what the fitted method predicts on them
    order = frame.index.to_numpy()
    np.testing.assert_array_equal(predicted["cluster"].to_numpy(), fitted.predict(data.X[order]))
    reps = fitted.representatives_
    np.testing.assert_array_equal(fitted.predict(data.X[reps]), labels[reps])


def test_predict_refuses_a_table_without_the_columns(tmp_path, iris_file):
    data_path, y = iris_file
    session = HumanSession(tmp_path / "s.db", load_data(data_path, id_column="name"), lw.COBRAS(random_state=0))
    answer_from(session, y, 3)
    session.close()
    model = tmp_path / "m.skops"
    assert run("export", tmp_path / "s.db", "-o", tmp_path / "l.csv", "--model", model).exit_code == 0
    frame = pd.read_csv(data_path).drop(columns=["petal_width"])
    frame.to_csv(tmp_path / "short.csv", index=False)
    refused = run("predict", model, tmp_path / "short.csv")
    assert refused.exit_code == 1 and "petal_width" in refused.output and "Traceback" not in refused.output
    assert run("predict", model, model).exit_code != 0  # not a table
    foreign = tmp_path / "x.skops"
    foreign.write_bytes(b"not a zip")
    bad = run("predict", foreign, data_path)
    assert bad.exit_code == 1 and "not a skops file" in bad.output


@pytest.mark.slow
def test_series_session_model_predicts_new_series(tmp_path):
    pytest.importorskip("aeon")
    from tests.session.test_session_series import shapes, wide_csv

    X, y = shapes(n=16)
    options = {"columns": ["t0:t39"]}
    data = load_data(wide_csv(tmp_path, X, y), id_column="name", series=options)
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(metric="dtw", random_state=0))
    answer_from(session, y, 10)
    session.close()
    model = tmp_path / "m.skops"
    assert run("export", tmp_path / "s.db", "-o", tmp_path / "l.csv", "--model", model).exit_code == 0
    X_new, y_new = shapes(n=6, seed=1)
    (tmp_path / "new").mkdir()
    done = run("predict", model, wide_csv(tmp_path / "new", X_new, y_new))
    assert done.exit_code == 0, done.output
    predicted = pd.read_csv(io.StringIO(done.output))
    fitted = lw.persist.load(model)
    np.testing.assert_array_equal(predicted["cluster"].to_numpy(), fitted.predict(X_new))
    assert predicted["id"].tolist() == [f"s{k}" for k in range(6)]
