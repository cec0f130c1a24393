"""Time series in a human session: wide and long tables, their errors, and a session answered end to end."""

import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from linkwise.cli import main
from linkwise.session import HumanSession, load_data
from linkwise.session.core._controller import read_meta
from linkwise.session.front._terminal import _sparkline


def shapes(n=12, length=40, seed=0):
    """Sine waves and square waves, each with a random phase: two kinds of shape."""
    rng = np.random.RandomState(seed)
    t = np.linspace(0, 2 * np.pi, length)
    y = np.arange(n) % 2
    X = np.array([np.sin(t + rng.uniform(0, 2)) for _ in y])
    X[y == 1] = np.sign(X[y == 1])
    return X + 0.05 * rng.randn(n, length), y


def wide_csv(folder, X, y):
    frame = pd.DataFrame(X, columns=[f"t{k}" for k in range(X.shape[1])])
    frame.insert(0, "name", [f"s{k}" for k in range(len(y))])
    frame["kind"] = np.where(y, "square", "sine")
    frame.to_csv(folder / "wide.csv", index=False)
    return folder / "wide.csv"


def long_frame(X):
    n, length = X.shape
    return pd.DataFrame({"sid": np.repeat([f"s{k}" for k in range(n)], length), "t": np.tile(np.arange(length), n),
                         "v": X.ravel(), "w": -X.ravel(), "site": "lab"})


def test_wide_and_long_tables_give_the_same_series(tmp_path):
    X, y = shapes()
    wide = load_data(wide_csv(tmp_path, X, y), id_column="name", series={"columns": ["t0:t39"]})
    assert wide.X.shape == (12, 40) and np.allclose(wide.X, X)
    item = wide.item(3)
    assert item["id"] == "s3" and item["fields"] == [["kind", "square"]]  # the steps are no fields
    assert len(item["series"]) == 1 and len(item["series"][0]) == 40 and 0 <= min(item["series"][0])
    listed = load_data(tmp_path / "wide.csv", series={"columns": [",".join(f"t{k}" for k in range(40))]})
    assert np.array_equal(listed.X, wide.X)
    channels = load_data(tmp_path / "wide.csv", series={"columns": ["t0:t19", "t20:t39"]})
    assert channels.X.shape == (12, 20, 2) and len(channels.item(0)["series"]) == 2

    frame = long_frame(X)
    frame.sample(frac=1, random_state=0).to_csv(tmp_path / "long.csv", index=False)  # --time restores the order
    long = load_data(tmp_path / "long.csv", series={"id": "sid", "time": "t", "value": ["v", "w"]})
    assert long.ids.tolist() != [f"s{k}" for k in range(12)]  # series in order of first appearance
    order = np.argsort([int(s[1:]) for s in long.ids])
    assert np.allclose(long.X[order, :, 0], X) and np.allclose(long.X[order, :, 1], -X)
    assert long.item(0)["fields"] == [["site", "lab"]]
    changed = frame.copy()
    changed.loc[5, "v"] += 1
    changed.to_csv(tmp_path / "changed.csv", index=False)
    frame.to_csv(tmp_path / "same.csv", index=False)
    options = {"id": "sid", "value": ["v"]}
    assert load_data(tmp_path / "changed.csv", series=options).fingerprint != \
        load_data(tmp_path / "same.csv", series=options).fingerprint


def test_shorter_series_are_resampled_to_the_longest(tmp_path):
    frame = pd.DataFrame({"sid": ["a"] * 5 + ["b"] * 3, "t": ["2024-01-0" + str(d) for d in (1, 2, 3, 4, 5, 3, 1, 2)],
                          "v": [0, 1, 2, 3, 4, 4, 0, 2]})
    frame.to_csv(tmp_path / "long.csv", index=False)
    data = load_data(tmp_path / "long.csv", series={"id": "sid", "time": "t", "value": ["v"]})
    assert np.allclose(data.X, [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]])  # ISO dates order b's rows: 0, 2, 4
    pd.DataFrame({"t0": [0, 5], "t1": [1, 6], "t2": [2, None]}).to_csv(tmp_path / "wide.csv", index=False)
    assert np.allclose(load_data(tmp_path / "wide.csv", series={"columns": ["t0:t2"]}).X, [[0, 1, 2], [5, 5.5, 6]])


@pytest.mark.parametrize("series, match", [
    ({"columns": ["t0:t99"]}, "series\\['columns'\\]: 't99' is not a column of the data; columns are: name, t0, t1"),
    ({"columns": ["t5:t2"]}, "series\\['columns'\\] 't5:t2' is an empty range: 't2' comes before 't5'"),
    ({"columns": ["t0:t3", "t4:t5"]}, "the channels have 4, 2 columns"),
    ({"columns": ["name,t0"]}, "the column 'name' is not numeric: text, not numbers \\('s0' at line 2\\)"),
    ({"columns": ["t0:t5"]}, "the column 't2' has a missing or infinite value at line 4 before its series ends"),
    ({"id": "sid", "value": ["v"]}, "series\\['id'\\]: 'sid' is not a column of the data"),
    ({"columns": "t0"}, "'series' argument of load_data must be"),
])
def test_bad_wide_tables_name_the_argument_and_the_fix(tmp_path, series, match):
    X, y = shapes(n=4, length=6)
    X[2, 2] = np.nan
    with pytest.raises(ValueError, match=match):
        load_data(wide_csv(tmp_path, X, y), series=series)


@pytest.mark.parametrize("change, series, match", [
    ({"v": [1, "x", 3, 4]}, {"id": "sid", "value": ["v"]}, "series\\['value'\\]: the column 'v' is not numeric: 1 of 4 cells"),
    ({"v": [1, None, 3, 4]}, {"id": "sid", "value": ["v"]}, "an empty or infinite cell at line 3"),
    ({"t": [0, 0, 0, 1]}, {"id": "sid", "time": "t", "value": ["v"]}, "series 'a' has two rows at time 0 \\(line 3\\)"),
    ({"t": ["x", 1, 0, 1]}, {"id": "sid", "time": "t", "value": ["v"]}, "'x' at line 2, not a number or an ISO date"),
    ({"sid": ["a"] * 4}, {"id": "sid", "value": ["v"]}, "holds 1 series; a session needs at least 2"),
    ({"sid": ["a", "a", " ", "b"]}, {"id": "sid", "value": ["v"]}, "an empty or infinite cell at line 4"),
])
def test_bad_long_tables_name_the_argument_and_the_fix(tmp_path, change, series, match):
    frame = pd.DataFrame({"sid": ["a", "a", "b", "b"], "t": [0, 1, 0, 1], "v": [1.0, 2, 3, 4]}).assign(**change)
    frame.to_csv(tmp_path / "long.csv", index=False)
    with pytest.raises(ValueError, match=match):
        load_data(tmp_path / "long.csv", series=series)


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.mark.slow
def test_command_line_mistakes_name_the_flag(tmp_path):
    path = wide_csv(tmp_path, *shapes(n=4, length=6))
    for args, match in [
        (("--series-columns", "t0:t5", "--value", "t0"), "--series-columns: give the wide format or the long one"),
        (("--series-id", "name",), "--value: the long format needs both --series-id and --value"),
        (("--metric", "dtw"), "--metric: applies to time series"),
        (("--series-columns", "t0:t5", "--method", "cobs", "--metric", "dtw"), "--metric: ActiveCOBS takes no metric"),
        (("--series-columns", "t0:t2", "--series-columns", "t3:t5", "--method", "cobs"), "--method: ActiveCOBS takes"),
        (("--series-columns", "t0:t5", "--text-column", "kind"), "leave out --features and --text-column"),
        (("--series-columns", "t0:t99"), "--series-columns: 't99' is not a column of the data"),
        (("--series-id", "sid", "--value", "t0"), "--series-id: 'sid' is not a column of the data"),
        (("--series-id", "name", "--value", "t0", "--id-column", "name"), "names the series; leave out --id-column."),
    ]:
        result = run("cluster", path, "--ui", "terminal", *args, input="q")
        assert result.exit_code != 0 and match in result.output, result.output
        assert not (tmp_path / "wide.linkwise.db").exists()
    long_frame(shapes(n=4, length=6)[0]).to_csv(tmp_path / "long.csv", index=False)
    done = run("cluster", tmp_path / "long.csv", "--series-id", "sid", "--time", "t", "--value", "v, w", "--ui",
               "terminal", input="q")
    assert done.exit_code == 0 and "series  │ " in done.output, done.output
    series = read_meta(tmp_path / "long.linkwise.db")["data_options"]["series"]
    assert series == {"id": "sid", "time": "t", "value": ["v", "w"]}


@pytest.mark.slow
def test_terminal_session_shows_sparklines_and_resumes(tmp_path):
    X, y = shapes()
    path = wide_csv(tmp_path, X, y)
    answers = "".join("s\n" if k % 2 else "d\n" for k in range(3)) + "q\n"
    first = run("cluster", path, "--series-columns", "t0:t39", "--id-column", "name", "--ui", "terminal",
                input=answers)
    assert first.exit_code == 0, first.output
    assert "median of " in first.output
    # beside each id shown, the series row draws that item's series (the session's seed, and so the pairs, vary)
    charts = load_data(path, series={"columns": ["t0:t39"]}, id_column="name").charts
    drawn = re.findall(r"│ name +│ s(\d+) +│ s(\d+) +│\n│ series +│ ([▁-█]+) +│ ([▁-█]+) +│", first.output)
    assert len(drawn) == 4  # questions 1-4: three answered, the fourth on screen at q
    for *rows, line_a, line_b in drawn:
        for row, line in zip(map(int, rows), (line_a, line_b)):
            assert line == _sparkline(charts[row, :, 0], len(line)) and len(set(line)) >= 2  # a shape, not a bar
    meta = read_meta(tmp_path / "wide.linkwise.db")
    assert meta["data_options"]["series"] == {"columns": ["t0:t39"]}
    cache = tmp_path / "wide.linkwise.cache"
    assert meta["params"]["metric"] == "dtw" and meta["params"]["cache"] == str(cache)  # dtw by default
    [matrix] = cache.glob("dtw-*.npy")  # one matrix: the one computed before the session, used by Auto
    written = matrix.stat().st_mtime_ns
    again = run("cluster", path, "--ui", "terminal", input="q\n")  # the stored series options and metric
    assert again.exit_code == 0 and "(3 questions answered so far)" in again.output, again.output
    assert matrix.stat().st_mtime_ns == written  # read from the cache, not computed again
    other = run("cluster", path, "--ui", "terminal", "--metric", "kshape", input="q\n")
    assert other.exit_code == 1 and "metric='dtw' (asked: 'kshape')" in other.output, other.output
    labels = pd.read_csv(tmp_path / "wide.labels.csv")
    assert labels["id"].tolist() == [f"s{k}" for k in range(12)]
    assert run("export", tmp_path / "wide.linkwise.db").output == labels.to_csv(index=False)
    other = run("cluster", path, "--series-columns", "t0:t19", "--ui", "terminal", input="q\n")
    assert other.exit_code == 1 and "other feature options" in other.output


def test_http_state_carries_the_series_and_their_cluster(tmp_path, live):
    import linkwise as lw

    X, y = shapes()
    data = load_data(wide_csv(tmp_path, X, y), id_column="name", series={"columns": ["t0:t39"]})
    server, session = live(data, lw.COBRAS(random_state=0))
    client = server.client()
    state = client.get("/api/state").json()
    for item in state["question"]["items"]:
        assert len(item["series"][0]) == 40 and len(item["context"]) == 11  # all other members: one cluster
    i, j = state["question"]["pair"]
    reply = client.post("/api/answer", json={"position": state["position"], "answer": "same" if y[i] == y[j] else
                                              "different"})
    assert reply.status_code == 200 and reply.json()["state"]["n_answered"] == 1
    assert isinstance(session, HumanSession)


@pytest.mark.slow
def test_distances_are_computed_before_the_first_question_with_a_progress_bar(tmp_path):
    from tests.e2e.test_session_terminal import Terminal

    terminal = Terminal(wide_csv(tmp_path, *shapes(n=60)), "--series-columns", "t0:t39", "--method", "cobras",
                        "--metric", "kshape")
    try:
        terminal.expect(r"kshape distances between 60 series.*Question 1:")
        terminal.press("q")
    finally:
        terminal.close()
    assert list((tmp_path / "wide.linkwise.cache").glob("kshape-*.npy"))


def test_long_series_ids_are_text_as_written(tmp_path):
    (tmp_path / "long.csv").write_text("sid,v\n1,0\n1,1\n1.0,5\n1.0,6\n007,2\n007,3\n")
    data = load_data(tmp_path / "long.csv", series={"id": "sid", "value": ["v"]})
    assert data.ids.tolist() == ["1", "1.0", "007"]  # pandas would read one series 1 of four steps
    assert np.array_equal(data.X, [[0, 1], [5, 6], [2, 3]])
