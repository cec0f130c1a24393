"""DataFrames in ActiveSession and open_session (loaded as the command line loads a file), and active estimators
inside scikit-learn pipelines."""

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import linkwise as lw
from linkwise.exceptions import InvalidParameterError

pd = pytest.importorskip("pandas", reason="the session extra (pandas) is not installed")
from linkwise.session import load_data, load_frame, open_session  # noqa: E402

WORDS = [["red", "fox", "den", "fur", "tail"], ["blue", "sky", "cloud", "rain", "wind"]]


def notes(seed, n=30):
    """A DataFrame of ``n`` shuffled rows of two topics: an id, a note of the topic's words, a constant score; and
    the topics."""
    rng = np.random.RandomState(seed)
    y = rng.permutation(np.arange(n) % 2)
    text = [" ".join(rng.choice(WORDS[k], 4)) for k in y]
    frame = pd.DataFrame({"name": [f"n{rng.randint(10**6)}-{r}" for r in range(n)], "note": text, "score": 1.0})
    return frame, y


def answer(session, y):
    while (pair := session.ask()) is not None:
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    return session.labels_


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_frame_with_text_is_loaded_as_a_file_is(tmp_path, seed):
    frame, y = notes(seed)
    session = lw.ActiveSession(lw.COBRAS(max_queries=30, random_state=seed), frame, id_column="name",
                               text_column="note")
    frame.to_csv(tmp_path / "notes.csv", index=False)
    from_file = load_data(tmp_path / "notes.csv", id_column="name", text_column="note")
    assert np.allclose(session.data_.X, from_file.X) and session.data_.ids.tolist() == frame["name"].tolist()
    assert session.data_.item(3)["text"] == frame["note"][3] and session.data_.path is None
    assert adjusted_rand_score(y, answer(session, y)) == 1.0


def test_a_frame_with_text_columns_needs_no_options_and_a_numeric_one_keeps_its_names():
    frame, _ = notes(0)
    frame["size"] = np.arange(len(frame), dtype=float)
    session = lw.ActiveSession(lw.COBRAS(max_queries=3, random_state=0), frame)
    # as the command line: the numeric columns, min-max scaled, and why the others are left out
    assert np.allclose(session.data_.X, np.c_[np.zeros(len(frame)), np.linspace(0, 1, len(frame))])
    assert set(session.data_.dropped_columns) == {"name", "note"}
    numeric = lw.ActiveSession(lw.COBRAS(max_queries=3, random_state=0), frame[["score", "size"]])
    assert numeric.data_ is None and list(numeric.estimator_.feature_names_in_) == ["score", "size"]
    assert np.array_equal(numeric._ctx.X, frame[["score", "size"]].to_numpy())  # as given: unscaled
    unscaled = lw.ActiveSession(lw.COBRAS(max_queries=3, random_state=0), frame[["score", "size"]], scale="none")
    assert np.array_equal(unscaled.data_.X, numeric._ctx.X) and unscaled.data_.feature_columns == ["score", "size"]
    with pytest.raises(InvalidParameterError, match="'scale' argument of load_frame"):
        lw.ActiveSession(lw.COBRAS(), frame, scale="zscore")


def test_a_frame_with_image_paths(tmp_path):
    pytest.importorskip("skimage", reason="the images extra (scikit-image) is not installed")
    from PIL import Image

    rng = np.random.RandomState(0)
    y = rng.permutation(np.arange(12) % 2)
    paths = []
    for k, kind in enumerate(y):  # red vertical or blue horizontal stripes
        line = (np.arange(32) + k) % 6 < 3
        mask = np.broadcast_to(line[None, :] if kind else line[:, None], (32, 32))
        colour = np.array((200, 30, 30) if kind else (30, 30, 200), np.uint8)
        Image.fromarray(np.where(mask[..., None], colour, np.uint8(255))).save(tmp_path / f"i{k}.png")
        paths.append(f"i{k}.png")
    frame = pd.DataFrame({"file": paths, "place": "lab"})
    session = lw.ActiveSession(lw.COBRAS(max_queries=20, random_state=0), frame, image_column="file",
                               image_root=tmp_path)
    assert session.data_.X.shape[0] == 12 and session.data_.image_path(5) == tmp_path / "i5.png"
    assert adjusted_rand_score(y, answer(session, y)) == 1.0
    with pytest.raises(InvalidParameterError, match="i0.png"):  # relative to the working directory by default
        lw.ActiveSession(lw.COBRAS(), frame, image_column="file")


@pytest.mark.slow
def test_a_series_given_as_columns():
    rng = np.random.RandomState(0)
    y = rng.permutation(np.arange(16) % 2)
    t = np.linspace(0, 2 * np.pi, 30)
    X = np.array([np.sin(t + rng.uniform(0, 1)) for _ in y])
    X[y == 1] = np.sign(X[y == 1])
    frame = pd.DataFrame(X, columns=[f"t{k}" for k in range(30)]).assign(kind="x")
    session = lw.ActiveSession(lw.COBRAS(max_queries=40, random_state=0, metric="dtw"), frame,
                               series={"columns": ["t0:t29"]})
    assert session.data_.X.shape == (16, 30) and np.allclose(session.data_.X, X)
    assert adjusted_rand_score(y, answer(session, y)) == 1.0


def test_bad_frames_and_options_are_refused_in_one_line():
    frame, _ = notes(0)
    with pytest.raises(InvalidParameterError, match="'text_column' argument of ActiveSession .* X is a ndarray"):
        lw.ActiveSession(lw.COBRAS(), np.zeros((4, 2)), text_column="note")
    with pytest.raises(InvalidParameterError, match="'nope' is not a column"):
        lw.ActiveSession(lw.COBRAS(), frame, text_column="nope")
    with pytest.raises(InvalidParameterError, match="The id column 'score' is not unique"):
        lw.ActiveSession(lw.COBRAS(), frame, id_column="score")
    with pytest.raises(InvalidParameterError, match="The DataFrame has two columns named 'a'"):
        load_frame(pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"]))
    with pytest.raises(InvalidParameterError, match="'frame' argument of load_frame must be a pandas or polars"):
        load_frame(np.zeros((3, 2)))
    with pytest.raises(InvalidParameterError, match="The DataFrame has no numeric feature columns"):
        lw.ActiveSession(lw.COBRAS(), frame[["name", "note"]])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("make", [lambda: lw.COBRAS(max_queries=5, random_state=0), lambda: lw.PCKMeans(n_clusters=2)])
def test_fit_on_a_frame_with_text_points_to_the_loader_in_one_line(seed, make):
    frame, y = notes(seed)
    frame["size"] = np.arange(len(frame), dtype=float)
    frame = frame[np.random.RandomState(seed).permutation(frame.columns)]  # the text column anywhere
    first = next(c for c in frame.columns if c in ("name", "note"))
    fit_args = (lw.LabelOracle(y),) if isinstance(make(), lw.ActiveEstimator) else ()
    with pytest.raises(InvalidParameterError) as refused:
        make().fit(frame, *fit_args)
    message = str(refused.value)
    assert "\n" not in message and f"Column {first!r} of the X given to" in message
    assert f"{frame[first][0]!r} at row 0" in message and "linkwise.session.load_frame(X, text_column=...)" in message
    # what the message says to do works, and a frame of numbers still fits as it is
    loaded = load_frame(frame, id_column="name", text_column="note")
    assert make().fit(loaded.X, *fit_args).labels_.shape == (len(frame),)
    assert make().fit(frame[["score", "size"]], *fit_args).labels_.shape == (len(frame),)
    nullable = frame[["size"]].astype("Int64")
    nullable.iloc[3, 0] = pd.NA  # numbers with a gap: refused as NaN, not as text
    with pytest.raises(InvalidParameterError, match="contains NaN"):
        make().fit(nullable, *fit_args)


def test_a_human_session_points_from_a_frame_or_array_to_open_session(tmp_path):
    from linkwise.session import HumanSession

    frame, y = notes(3)
    for raw in (frame, frame[["score"]].to_numpy(), load_frame(frame, id_column="name", text_column="note")):
        with pytest.raises(InvalidParameterError) as refused:
            HumanSession(tmp_path / "s.db", raw)
        assert "\n" not in str(refused.value) and "open_session(path, data) takes an array or a DataFrame" in str(
            refused.value)
        assert not (tmp_path / "s.db").exists()  # refused before the session file is made
    # what the message says: the frame loaded as the command line loads it, then written beside the session file
    session = open_session(tmp_path / "b.db", frame, lw.COBRAS(random_state=3), id_column="name", text_column="note")
    assert np.allclose(session.data.X, load_frame(frame, id_column="name", text_column="note").X)
    i, j = session.state().question.pair
    session.answer(session.position, bool(y[i] == y[j]))
    session.close()
    resumed = open_session(tmp_path / "b.db")  # from the file written beside it
    assert resumed.state().n_answered == 1
    resumed.close()


def test_polars_frames():
    pl = pytest.importorskip("polars", reason="polars is not installed")
    frame, y = notes(1)
    session = lw.ActiveSession(lw.COBRAS(max_queries=30, random_state=1), pl.from_pandas(frame), id_column="name",
                               text_column="note")
    same = lw.ActiveSession(lw.COBRAS(max_queries=30, random_state=1), frame, id_column="name", text_column="note")
    assert np.array_equal(session.data_.X, same.data_.X) and np.array_equal(answer(session, y), answer(same, y))
    numeric = lw.ActiveSession(lw.COBRAS(max_queries=3), pl.DataFrame({"a": [0.0, 1, 2, 3], "b": [1.0, 0, 1, 0]}))
    assert numeric.data_ is None and list(numeric.estimator_.feature_names_in_) == ["a", "b"]


def test_open_session_takes_a_polars_frame(tmp_path):
    pl = pytest.importorskip("polars", reason="polars is not installed")
    frame, _ = notes(2)
    session = open_session(tmp_path / "s.db", pl.from_pandas(frame), lw.COBRAS(random_state=0), id_column="name",
                           text_column="note")
    try:
        assert session.data.path.name == "s.parquet" and session.data.item(4)["id"] == frame["name"][4]
    finally:
        session.close()
    again = open_session(tmp_path / "s.db", frame)  # the same data as pandas: the same file
    again.close()


@pytest.mark.parametrize("make", [lambda: lw.COBRAS(max_queries=10, random_state=0),
                                  lambda: lw.Auto(max_queries=10, random_state=0),
                                  lambda: lw.ActiveCOBS(max_queries=10, random_state=0)])
@pytest.mark.slow
def test_active_estimators_in_a_pipeline(make):
    X, y = lw.datasets.load("iris")
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    pipe = make_pipeline(StandardScaler(), make()).fit(frame, lw.LabelOracle(y))  # the oracle is the pipeline's y
    alone = make().fit(StandardScaler().fit_transform(X), lw.LabelOracle(y))
    assert np.array_equal(pipe[-1].labels_, alone.labels_) and pipe[-1].n_queries_ <= 10
    assert list(pipe.feature_names_in_) == ["sl", "sw", "pl", "pw"]
    assert np.array_equal(make_pipeline(StandardScaler(), make()).fit_predict(frame, lw.LabelOracle(y)), alone.labels_)
    rows = np.random.RandomState(0).permutation(len(X))[:20]
    assert np.array_equal(pipe.predict(frame.iloc[rows]), alone.labels_[rows])
    named = make_pipeline(StandardScaler().set_output(transform="pandas"), make()).fit(frame, lw.LabelOracle(y))
    assert list(named[-1].feature_names_in_) == ["sl", "sw", "pl", "pw"]  # the final step sees the names too
    with pytest.raises(InvalidParameterError, match="oracle"):
        make_pipeline(StandardScaler(), make()).fit(frame, y)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_column_transformer_embeds_text_before_cobras(seed):
    frame, y = notes(seed, n=40)
    embed = make_pipeline(TfidfVectorizer(), TruncatedSVD(n_components=2, random_state=0))
    pipe = make_pipeline(ColumnTransformer([("text", embed, "note"), ("score", "passthrough", ["score"])]),
                         lw.COBRAS(max_queries=40, random_state=seed))
    labels = pipe.fit(frame, lw.LabelOracle(y))[-1].labels_
    assert adjusted_rand_score(y, labels) == 1.0
    assert list(pipe.feature_names_in_) == ["name", "note", "score"]
    shuffled = np.random.RandomState(seed).permutation(len(frame))
    assert np.array_equal(pipe.predict(frame.iloc[shuffled]), labels[shuffled])


@pytest.mark.slow
def test_a_polars_frame_without_the_session_extra_names_it():
    pytest.importorskip("polars", reason="polars is not installed")
    from tests.core.test_extras import run

    out = run("""
    import polars as pl, linkwise as lw
    try:
        lw.ActiveSession(lw.COBRAS(), pl.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "z"]}))
    except ImportError as exc:
        print(exc)
    """, blocked=("pandas",))
    assert out == "linkwise.session needs the 'session' extra (pandas is not installed): pip install 'linkwise[session]'\n"
