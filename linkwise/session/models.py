"""A finished session's clustering as a saved model, and ``linkwise predict``: new rows of a table to its clusters.

``linkwise export SESSION.db --model model.skops`` saves the session's
fitted method (:meth:`HumanSession.model`) with how its table became
features: the id column, the numeric feature columns and their min-max
scaling, or the series layout. ``linkwise predict model.skops new.csv``
reads a table with those columns (the same reading as ``linkwise cluster``:
:func:`~linkwise.session.load_data`), scales them as the session's rows were
scaled, and writes each row's id and cluster. Sessions on a text or image
column embed it with a model fitted on their own rows, which the saved model
does not carry: their export is refused.
"""

from pathlib import Path

import click
import numpy as np

from linkwise import persist
from linkwise._validation import InvalidParameterError, apply_scaling
from linkwise.session.data._data import load_data

__all__ = ["save_model", "predict_table", "predict"]


def save_model(session, path):
    """Save ``session``'s fitted method and its table's feature layout to ``path`` (see :mod:`linkwise.persist`)."""
    data = session.data
    options = data.options
    if options["text_column"] is not None or options["image_column"] is not None:
        raise InvalidParameterError("The session clusters on a text or image column, embedded with a model of its own "
                                    "rows that a saved model does not carry; --model needs numeric feature columns "
                                    "or series.")
    table = {"id_column": options["id_column"], "features": data.feature_columns, "series": options["series"],
             "scaling": None if data.scaling is None else [np.asarray(part) for part in data.scaling]}
    persist.save(session.model(), path, metadata={"table": table})


def predict_table(model, path, *, encoding=None):
    """The ids and clusters of the rows of the table at ``path``, by a model saved with :func:`save_model`.

    Returns
    -------
    ids : pandas.Series
    labels : ndarray of int
    """
    estimator, metadata = persist.load(model, metadata=True)
    table = metadata.get("table")
    if table is None:
        raise InvalidParameterError(f"The model {model} holds no table layout; save it with `linkwise export "
                                    "--model` to predict from a table.")
    data = load_data(path, id_column=table["id_column"], features=table["features"], scale="none",
                     encoding=encoding, series=table["series"])
    X = data.X if table["scaling"] is None else apply_scaling(data.X, table["scaling"])
    try:
        return data.ids, estimator.predict(X)
    except ValueError as error:  # e.g. series of another length
        raise InvalidParameterError(f"The table {path} does not fit the model {model}: {error}") from None


@click.command()
@click.argument("model", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("table", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--out", default="-", show_default=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Labels CSV (id, cluster); '-' prints it.")
@click.option("--encoding", help="The text encoding of the CSV, e.g. latin-1 (default: UTF-8, or as its BOM says).")
def predict(model, table, out, encoding):
    """Assign the rows of TABLE (CSV or Parquet, the session's columns) to the clusters of MODEL.

    MODEL is written by `linkwise export SESSION.db --model model.skops`.
    """
    import pandas as pd

    if out != "-" and any(Path(out).resolve() == Path(p).resolve() for p in (model, table)):
        raise click.BadParameter(f"{out} is an input file; writing there would destroy it. Name another file.",
                                 param_hint="--out")
    ids, labels = predict_table(model, table, encoding=encoding)
    frame = pd.DataFrame({"id": ids.to_numpy(), "cluster": labels})
    if out == "-":
        click.echo(frame.to_csv(index=False), nl=False)
    else:
        frame.to_csv(out, index=False)
        click.echo(f"Wrote {len(frame)} rows to {out}", err=True)
