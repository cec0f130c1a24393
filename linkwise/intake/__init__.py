"""Tables as a method's data: a pandas or polars DataFrame (or a data file's table) loaded as one Dataset.

:func:`load_frame` loads a DataFrame as ``linkwise cluster`` loads a data file:
the numeric columns as features, a text column embedded (:func:`embed_text`), an
image column's images as features, time series, ids as text; the
:class:`Dataset` holds what is clustered (``X``) and what a person sees of each
row. Part of the core, below the question loop (:class:`~linkwise.ActiveSession`
loads a DataFrame with it) and used by the session (:mod:`linkwise.session` reads
data files into it); it needs pandas (the ``session`` extra).
"""

from linkwise.intake._table import (
    HUGE,
    Dataset,
    Source,
    UnsafePathError,
    as_pandas,
    blank,
    embed_text,
    huge_integers,
    load_frame,
    load_table,
)

__all__ = ["HUGE", "Dataset", "Source", "UnsafePathError", "as_pandas", "blank", "embed_text", "huge_integers",
           "load_frame", "load_table"]
