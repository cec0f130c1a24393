"""``linkwise cluster`` and ``linkwise export``: thin shells over :class:`HumanSession`."""

import json
from pathlib import Path

import click

from linkwise._validation import InvalidParameterError

__all__ = ["cluster", "export"]

_DATA_SUFFIXES = {".csv", ".tsv", ".txt", ".gz", ".bz2", ".xz", ".zst", ".zip", ".parquet", ".pq"}


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


def _user_errors(run):
    """Turn the library's argument and file errors into one-line command-line errors."""
    import pandas as pd

    try:
        return run()
    except (InvalidParameterError, OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise click.ClickException(str(exc)) from None


@click.command()
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--method", help="Active method: cobras (default), robust-cobras, cobra, cobs, bayes, or module:Class.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A method parameter, e.g. --param max_queries=100 (read as JSON, else as text). Repeatable.")
@click.option("--ui", type=click.Choice(["web", "terminal"]), default="web", show_default=True,
              help="Answer in a browser page or in this terminal.")
@click.option("--session", "session_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Session file (SQLite); reopening it resumes. Default: <data name>.linkwise.db beside DATA.")
@click.option("--id-column", help="Column of unique row ids (default: the row number).")
@click.option("--text-column", help="Column of text to embed and show.")
@click.option("--image-column", help="Column of image paths, relative to the data file's folder.")
@click.option("--image-root", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder image paths must lie under (default: the data file's folder).")
@click.option("--features", help="Comma-separated numeric columns to cluster on (default: every numeric column).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Labels CSV written when you finish. Default: <data name>.labels.csv beside the session file.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port on 127.0.0.1 (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the page's address without opening a browser.")
def cluster(data, method, params, ui, session_file, id_column, text_column, image_column, image_root, features,
            out, port, no_browser):
    """Cluster DATA (CSV or Parquet) by answering "same group?" questions.

    Every answer is saved at once in the session file; run the same command
    again to continue where you stopped.
    """
    from linkwise.session._controller import HumanSession
    from linkwise.session._data import load_data
    from linkwise.session._methods import resolve_method
    from linkwise.session._store import SessionStore

    session_file = session_file or data.parent / f"{_stem(data)}.linkwise.db"
    out = out or session_file.with_name(f"{session_file.stem.removesuffix('.linkwise')}.labels.csv")
    params = _parse_params(params)

    def open_session():
        stored = {}
        if session_file.is_file():
            with SessionStore(session_file, create=False) as store:
                stored = store.meta
        options = stored.get("data_options", {})
        given = {"id_column": id_column, "text_column": text_column, "image_column": image_column,
                 "features": None if features is None else [c.strip() for c in features.split(",") if c.strip()]}
        chosen = {k: options.get(k) if v is None else v for k, v in given.items()}
        root = image_root if image_root is not None else stored.get("image_root")
        dataset = load_data(data, image_root=root, scale=options.get("scale", "minmax"), **chosen)
        if stored and method is None and not params:
            estimator = None  # continue with the stored method
        else:
            estimator = resolve_method(method or stored.get("method", "cobras"))(**params)
        return HumanSession(session_file, dataset, estimator)

    session = _user_errors(open_session)
    try:
        click.echo(f"Session file: {session_file} ({session.state()['n_answered']} answers so far)")
        if ui == "terminal":
            from linkwise.session._terminal import run_terminal

            run_terminal(session, out)
        else:
            from linkwise.session._web import serve

            serve(session, out, port=port, open_browser=not no_browser, echo=click.echo)
    finally:
        session.close()


@click.command()
@click.argument("session_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--data", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The data file, if it has moved since the session began (its content must be the same).")
@click.option("-o", "--out", default="-", show_default=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Labels CSV (id, cluster); '-' prints it.")
@click.option("--answers", type=click.Path(dir_okay=False, allow_dash=True),
              help="Also write every answer (live, undone and corrected, with times) as CSV.")
def export(session_file, data, out, answers):
    """Write the clustering of a session file as CSV (id, cluster)."""
    from linkwise.session._controller import HumanSession
    from linkwise.session._data import load_data
    from linkwise.session._store import SessionStore

    def open_session():
        with SessionStore(session_file, create=False) as store:
            meta = store.meta
        if not meta:
            raise InvalidParameterError(f"{session_file} holds no session yet.")
        options = dict(meta["data_options"])
        scale = options.pop("scale")
        dataset = load_data(data or meta["data_path"], image_root=meta["image_root"], scale=scale, **options)
        return HumanSession(session_file, dataset)

    session = _user_errors(open_session)
    try:
        for path, frame in ((out, session.labels_frame()), (answers, answers and session.answers_frame())):
            if path == "-":
                click.echo(frame.to_csv(index=False), nl=False)
            elif path:
                frame.to_csv(path, index=False)
                click.echo(f"Wrote {len(frame)} rows to {path}", err=True)
    finally:
        session.close()
