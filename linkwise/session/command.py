"""``linkwise cluster`` and ``linkwise export``: thin shells over :class:`HumanSession`.

Library errors reach the person as one line through the funnel of :mod:`linkwise.cli`; those about the data name
the arguments of :func:`~linkwise.session.load_data`, which :func:`_flag_advice` turns into the flags that set them.
"""

import codecs
import functools
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path

import click

__all__ = ["cluster", "export"]

_DATA_SUFFIXES = {".csv", ".tsv", ".txt", ".gz", ".bz2", ".xz", ".zst", ".zip", ".parquet", ".pq"}
# load_data's arguments as its messages name them -> the flag of `linkwise cluster` that sets each
_FLAGS = {"id_column": "--id-column", "text_column": "--text-column", "image_column": "--image-column",
          "features": "--features", "encoding": "--encoding", "image_root": "--image-root",
          "series['columns']": "--series-columns", "series['id']": "--series-id", "series['time']": "--time",
          "series['value']": "--value"}
# "the 'features' argument", "encoding='latin-1'", "series['columns']", "text_column: ..." opening a message
_MENTION = re.compile(r"(?:the )?'(\w+)' argument|\b(\w+)='([^']*)'|(series\['\w+'\])|^(\w+)(?=: )")


def _stem(path):
    name = Path(path).name
    while Path(name).suffix.lower() in _DATA_SUFFIXES:
        name = name[: -len(Path(name).suffix)]
    return name or "session"


def _parse_params(items):
    params = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r} is not NAME=VALUE.", param_hint="--param")
        try:
            params[name.strip()] = json.loads(text)
        except ValueError:
            params[name.strip()] = text
    return params


def _check_encoding(ctx, param, value):
    if value is not None:
        try:
            codecs.lookup(value)
        except LookupError:
            raise click.BadParameter(f"{value!r} is not a known text encoding (e.g. utf-8, latin-1, utf-16).") from None
    return value


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return Path(a).resolve() == Path(b).resolve()


def _check_output(path, option, kept):
    """Refuse to write ``path`` when it is one of the person's files (``kept``: what -> path) or cannot be made."""
    for what, other in kept.items():
        if _same_file(path, other):
            raise click.BadParameter(f"{path} is the {what}; writing there would destroy it. Name another file.",
                                     param_hint=option)
    if not Path(path).resolve().parent.is_dir():
        raise click.BadParameter(f"the folder of {path} does not exist.", param_hint=option)


def _as_flags(message):
    """``message`` with each argument of load_data it names written as the flag that sets it."""
    def flag(match):
        argument = match[1] or match[2] or match[4] or match[5]
        if argument not in _FLAGS:
            return match[0]
        return _FLAGS[argument] + (f" {match[3]}" if match[2] else "")

    return _MENTION.sub(flag, message)


@contextmanager
def _flag_advice():
    """Errors about the data (from load_data, or a session refusing it), their advice given as flags."""
    from linkwise._validation import InvalidParameterError

    try:
        yield
    except InvalidParameterError as exc:
        advice = _as_flags(str(exc))
        if advice == str(exc):
            raise
        raise click.ClickException(advice) from None


def _series_option(columns, series_id, time, value):
    """The ``series`` argument of load_data from the command line (None: not given)."""
    if columns and (series_id or time or value):
        raise click.BadParameter("give the wide format or the long one (--series-id, --time, --value), not both.",
                                 param_hint="--series-columns")
    if columns:
        return {"columns": list(columns)}
    if series_id or time or value:
        if not (series_id and value):
            raise click.BadParameter("the long format needs both --series-id and --value.",
                                     param_hint="--value" if series_id else "--series-id")
        return {"id": series_id, "time": time, "value": [v.strip() for v in value.split(",")]}
    return None


def _add_metric(params, metric, cls, session_file, X):
    """Give a method that takes a metric the series metric (default dtw) and a distance cache beside the
    session file; ``cls`` None: the stored method (it refuses a metric it does not take)."""
    if cls is not None and "metric" not in cls._get_param_names():
        if metric or X.ndim == 3:
            raise click.BadParameter(f"{cls.__name__} takes no metric (it clusters series of one channel as rows "
                                     "of numbers); use cobras, cobra, robust-cobras or auto.",
                                     param_hint="--metric" if metric else "--method")
        return
    params.setdefault("metric", metric or "dtw")
    if params["metric"] != "euclidean":
        params.setdefault("cache", str(session_file.resolve().with_suffix(".cache")))


def _precompute(X, params):
    """The series distances computed (or found in the cache) now, with a progress bar, not at the first question."""
    if params.get("metric") not in ("dtw", "kshape") or not params.get("cache"):
        return
    from rich.console import Console
    from rich.progress import Progress

    from linkwise.series import series_distances

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{params['metric']} distances between {len(X)} series", total=None)
        series_distances(X, params["metric"], window=params.get("window", 0.1), cache=params["cache"],
                         progress=lambda done, total: bar.update(task, completed=done, total=total))


def _team_options(stored, annotators, overlap, disagreement, ui):
    """HumanSession's team arguments: those given, else the stored team's (``stored``: None for none)."""
    team = stored or {}
    if annotators is None and not team:
        if overlap is not None or disagreement is not None:
            raise click.BadParameter("applies to a team: name its annotators with --annotators alice,bob.",
                                     param_hint="--overlap" if overlap is not None else "--disagreement")
        return {}
    if ui == "terminal":
        raise click.BadParameter("a team answers in browser pages (--ui web), each annotator with their own link.",
                                 param_hint="--ui")
    if annotators is None:
        names = "open" if team.get("open") else team["annotators"]
    else:
        names = "open" if annotators.strip() == "open" else [a.strip() for a in annotators.split(",")]
    return {"annotators": names, "overlap": team.get("overlap", 0.0) if overlap is None else overlap,
            "disagreement": disagreement or team.get("disagreement", "third")}


@click.command()
@click.argument("data", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--demo", type=click.Choice(["digits"]),
              help="Instead of DATA: scikit-learn's 1,797 handwritten digits as 8x8 images, written once to the "
              "user's cache folder (the command says where); the session file and labels go to the "
              "current folder (linkwise-digits.*). --ui terminal: h shows each digit's label as a hint.")
@click.option("--method", help="Active method: auto (default), cobras, robust-cobras, cobra, cobs, bayes, cobras-dtw, "
              "cobras-kshape, or module:Class.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A method parameter, e.g. --param max_queries=100 (read as JSON, else as text). Repeatable.")
@click.option("--ui", type=click.Choice(["web", "terminal"]), default="web", show_default=True,
              help="Answer in a browser page or in this terminal (keys: s same, d different, ? don't know, "
                   "u undo, f an item in full, c the clusters, q quit).")
@click.option("--session", "session_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Session file (SQLite); reopening it resumes. Default: <data name>.linkwise.db beside DATA.")
@click.option("--id-column", help="Column of unique row ids. Default: detected, a column of different short texts "
              "(the 'Detected:' line names it), else the row number; a folder's file names.")
@click.option("--text-column", help="Column of text to embed and show. Default: detected, the column of the "
              "longest sentences (the 'Detected:' line names it), else none.")
@click.option("--image-column", help="Column of image paths, relative to the data file's folder (default: none; a "
              "folder's images).")
@click.option("--image-root", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder image paths must lie under (default: the data file's folder).")
@click.option("--features", help="Comma-separated numeric columns to cluster on, first:last for a range (e.g. "
              "emb_0:emb_511), the image column for its images (default: every numeric column, else the images).")
@click.option("--encoding", callback=_check_encoding,
              help="Text encoding of a CSV file (default UTF-8), e.g. latin-1 or utf-16; kept in the session file.")
@click.option("--series-columns", multiple=True, metavar="FIRST:LAST",
              help="Time series, one per row: an inclusive column range (t0:t127) or a comma list; repeat it for "
                   "each further channel.")
@click.option("--series-id", help="Time series, one row per time step: the column naming each row's series.")
@click.option("--time", "time_column", help="With --series-id: the column to order each series by (default: file order).")
@click.option("--value", help="With --series-id: the value column (a comma list for several channels).")
@click.option("--metric", type=click.Choice(["dtw", "kshape", "euclidean"]),
              help="Distance between time series for cobras, cobra, robust-cobras and auto (default: dtw).")
@click.option("--constraints", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Pairs you already know, never asked: a CSV with id_a,id_b,answer (or i,j,answer by row number "
                   "from 0), answer same or different (also true/false, yes/no, 1/0, must-link/cannot-link). "
                   "Imported when the session starts.")
@click.option("--labels", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Labels you already know: a CSV with id,cluster for some rows (same cluster: together; "
                   "different: apart). Imported when the session starts.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Labels CSV written when you finish. Default: <data name>.labels.csv beside the session file.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port on 127.0.0.1 (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the page's address without opening a browser.")
@click.option("--annotators", help="Serve the session to a team, e.g. alice,bob,carol: each gets their own link and "
              "question, and every answer records who gave it (kept in the session file); 'open': one link, and "
              "each person gives a name on their first visit.")
@click.option("--overlap", type=click.FloatRange(0, 1), help="With --annotators: the share of pairs asked again of "
              "a second annotator, for agreement and Cohen's kappa (default 0).")
@click.option("--disagreement", type=click.Choice(["third", "repair"]), help="With --annotators: a disagreement goes "
              "to a third annotator, the majority standing (third, the default; a team of two repairs), or to the "
              "method as both answers (repair: robust-cobras weighs them, other methods show the contradiction).")
def cluster(data, demo, method, params, ui, session_file, id_column, text_column, image_column, image_root, features,
            encoding, series_columns, series_id, time_column, value, metric, constraints, labels, out, port,
            no_browser, annotators, overlap, disagreement):
    """Cluster DATA (CSV, Parquet or a folder of images) by answering "same group?" questions.

    Every answer is saved at once in the session file; run the same command
    again to continue where you stopped.
    """
    from linkwise.session.core._methods import encode_params
    from linkwise.session.core._open import resolve_session

    if (data is None) == (demo is None):
        raise click.UsageError("Give either DATA (a CSV, Parquet file or folder of images) or --demo digits.")
    data, session_file, hints, intro = _demo_data(data, session_file) if demo else (data, session_file, None, None)
    session_file, out = _files(data, session_file, out)
    params = _parse_params(params)
    features = None if features is None else [c.strip() for c in features.split(",") if c.strip()]
    series = _series_option(series_columns, series_id, time_column, value)
    with _flag_advice():  # the data's errors name flags (detection reads the file first)
        # one way with open_session: the stored options, or columns chosen (detected) afresh; "detected" is said
        # once the session starts, not before an error about another option
        stored, fresh, dataset, detected = resolve_session(
            session_file, data, id_column=id_column, text_column=text_column, image_column=image_column,
            features=features, encoding=encoding, series=series, image_root=image_root)
    _metric_option(params, metric, method, stored, session_file, dataset)
    estimator = _estimator(method, params, stored)
    if dataset.options["series"] is not None:
        _precompute(dataset.X, stored["params"] if estimator is None else encode_params(estimator))
    known = _known(dataset, constraints, labels)  # before the session: a bad file stores nothing
    team = _team_options(stored.get("team"), annotators, overlap, disagreement, ui)
    start = functools.partial(_open_session, session_file, dataset, estimator, method, known, team)
    if ui == "terminal":
        from linkwise.session.front._terminal import run_terminal

        # the labels are written when the person quits (q or Ctrl+C)
        _then_summary(start(detected), lambda session: run_terminal(session, out, hints=hints))
        return
    checked = _check_start(session_file, dataset, estimator, team, fresh)
    if detected:
        click.echo(detected)
    _then_summary(_serve_page(start, dataset, checked, out, port, no_browser, intro, hints),
                  lambda session: _write_labels(session, out))


def _demo_data(data, session_file):
    """``--demo digits``: the digit images written to a folder, said, and the session file they default to; with
    the hints the terminal may show and the page's introduction."""
    from linkwise.session.data._images import DIGITS_INTRO, write_digits

    data, digits = write_digits()
    click.echo(f"{DIGITS_INTRO}\nThe images: {data}")
    return data, session_file or Path("linkwise-digits.linkwise.db"), [f"the digit {d}" for d in digits], DIGITS_INTRO


def _files(data, session_file, out):
    """The session file and the labels file (each defaults to a name beside the data), neither the data file."""
    session_file = session_file or data.parent / f"{_stem(data)}.linkwise.db"
    out = out or session_file.with_name(f"{session_file.stem.removesuffix('.linkwise')}.labels.csv")
    if _same_file(session_file, data):
        raise click.BadParameter(f"{session_file} is the data file. Name another file.", param_hint="--session")
    _check_output(out, "--out", {"data file": data, "session file": session_file})
    return session_file, out


def _known(dataset, constraints, labels):
    """What the person brings (``--constraints``, ``--labels``) read against ``dataset``; None without either."""
    if not (constraints or labels):
        return None
    from linkwise.session.core._import import read_known

    return read_known(dataset, constraints, labels)


def _metric_option(params, metric, method, stored, session_file, dataset):
    """Add ``--metric`` (or the method's default for time series) to ``params``; refuse it for data that are not
    time series. A resumed session without ``--metric`` keeps its stored metric."""
    from linkwise.session.core._methods import resolve_method

    if dataset.options["series"] is not None and (metric or not stored):
        _add_metric(params, metric, None if stored and not method else resolve_method(method or "auto"), session_file,
                    dataset.X)
    elif metric:
        raise click.BadParameter("applies to time series (--series-columns or --series-id).", param_hint="--metric")


def _estimator(method, params, stored):
    """The estimator ``--method`` and ``--param`` give, for a session file whose meta is ``stored`` (empty: a new
    one); None: the stored method and parameters."""
    from linkwise.methods import PARAMS
    from linkwise.session.core._methods import build_estimator, make_method, resolve_method, same_method

    if stored and method is None and params:
        return build_estimator(stored["method"], params)  # the stored method, which must be linkwise's
    if stored and not params and (method is None or same_method(method, stored["method"])):
        return None
    return make_method(resolve_method(method or "auto"), {**PARAMS.get((method or "").lower(), {}), **params})


def _open_session(session_file, dataset, estimator, method, known, team, detected=""):
    """The session opened; then the columns ``detected`` and how many answers its file holds are said."""
    from linkwise.session.core._controller import HumanSession
    from linkwise.session.core._counts import count_statements, describe

    with _flag_advice():  # a new session refuses rows that are all the same in what is clustered
        session = HumanSession(session_file, dataset, estimator, trusted_method=method, known=known, **team)
    try:
        for line in (detected, f"Session file: {session_file} ({describe(count_statements(session.store.answers()))} "
                     "so far)"):
            if line:
                click.echo(line)
    except BaseException:
        session.close()
        raise
    return session


def _check_start(session_file, dataset, estimator, team, fresh):
    """Refuse before the page's address what the session would refuse as it opens (in the background, once the
    address is printed), each in one line: a session file it cannot hold, a team's names, a new session's rows
    all the same, the method's parameters. Returns the team checked (None: one person)."""
    from linkwise._validation import validate_params
    from linkwise.session.core._store import SessionStore
    from linkwise.session.core._team import check_team

    SessionStore.check_available(session_file)
    checked = check_team(**team) if team else None
    if fresh:
        with _flag_advice():
            dataset.check_rows_differ()
    if estimator is not None:
        validate_params(estimator)
    return checked


def _serve_page(start, dataset, team, out, port, no_browser, intro=None, hints=None):
    """The session ``start()`` opens, once the person has stopped answering on its page (served while it opens;
    ``team``: as checked; Finish writes the labels to ``out``; a demo's ``intro`` and ``hints``)."""
    from linkwise.session.front._web import SessionOpening, serve

    opening = SessionOpening(start, dataset, team)
    try:
        serve(opening, out, port=port, open_browser=not no_browser, echo=click.echo, intro=intro, hints=hints)
    except KeyboardInterrupt:  # uvicorn stops gracefully, then raises Ctrl+C again
        pass
    return opening.wait()  # stopped before the session was open: it is waited for (its labels are written)


def _write_labels(session, out):
    """The labels as the session ends (after Finish: the same again), written to ``out``."""
    from linkwise.session.core._summary import labels_line

    try:
        click.echo(labels_line(session.data.n_rows, session.write_labels(out), out))
    except OSError as exc:  # e.g. its folder is gone: the answers are safe in the session file
        click.echo(f"Could not write the labels to {out}: {exc.strerror or exc}.", err=True)


def _then_summary(session, answer):
    """``answer(session)`` (the person answers until they stop), then what is saved and how to go on."""
    from linkwise.session.core._summary import summary

    try:
        answer(session)
        for line in summary(session):
            click.echo(line)
    finally:
        session.close()


@click.command()
@click.argument("session_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--data", type=click.Path(exists=True, path_type=Path),
              help="The data file, if it has moved since the session began (its content must be the same).")
@click.option("-o", "--out", default="-", show_default=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Labels CSV (id, cluster); '-' prints it.")
@click.option("--answers", type=click.Path(dir_okay=False, allow_dash=True),
              help="Also write every answer (live, undone and corrected, with times, annotator and kind) as CSV.")
@click.option("--agreement", type=click.Path(dir_okay=False, allow_dash=True),
              help="Also write the annotators' agreement and Cohen's kappa on the pairs asked twice as CSV.")
@click.option("--constraints", type=click.Path(dir_okay=False, allow_dash=True),
              help="Also write the answers as constraints (id_a,id_b,answer same/different, with their kind and "
                   "annotator), the format `linkwise cluster --constraints` reads.")
@click.option("--model", type=click.Path(dir_okay=False),
              help="Also save the session's fitted method, to assign new rows with `linkwise predict` (.skops: "
                   "skops's safe format; else joblib).")
@click.option("--method", help="The session's method, when the file names one outside linkwise (module:Class): "
              "linkwise imports a method named in a file only if you name it too.")
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "jsonl"]),
              help="Format of every table written: CSV, JSON (an array of records) or JSON Lines (a record per line). "
                   "Default: each file's suffix (.json, .jsonl), else CSV.")
def export(session_file, data, out, answers, agreement, constraints, model, method, fmt):
    """Write the clustering of a session file (id, cluster, name) as CSV, JSON or JSON Lines.

    The session file is only read, even while its session is running.
    """
    from linkwise.session.core._controller import HumanSession, read_meta
    from linkwise.session.core._open import resolve_session

    meta = read_meta(session_file)
    if not meta:
        raise click.ClickException(f"{session_file} holds no session yet.")
    data = data or Path(meta["data_path"])
    for path, option in ((out, "--out"), (answers, "--answers"), (agreement, "--agreement"),
                         (constraints, "--constraints"), (model, "--model")):
        if path not in (None, "-"):
            _check_output(path, option, {"session file": session_file, "data file": data})
    with _flag_advice():
        dataset = resolve_session(session_file, data).dataset  # with the stored options
    session = HumanSession(session_file, dataset, read_only=True, trusted_method=method)
    try:
        from linkwise.session.core._counts import count_statements, describe
        from linkwise.session.core._export import export_format, format_table, session_table

        for path, table in ((out, "labels"), (answers, "answers"), (agreement, "agreement"),
                            (constraints, "constraints")):
            if not path:
                continue
            frame = session_table(session, table)
            text = format_table(frame, export_format(path, fmt))
            if path == "-":
                click.echo(text, nl=False)
            else:
                Path(path).write_text(text, encoding="utf-8")
                # a row per relation (a move is two): the count in the words of the page and the terminal beside it
                said = f" ({describe(count_statements(session.store.answers()))})" if table == "answers" else ""
                click.echo(f"Wrote {len(frame)} rows to {path}{said}", err=True)
        if model:
            from linkwise.session.models import save_model

            save_model(session, model)
            click.echo(f"Saved the model to {model}", err=True)
    finally:
        session.close()
