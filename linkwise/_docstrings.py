"""Docstrings assembled from shared parts, laid out the same under every Python.

Python 3.13 removes a docstring's common indentation when it compiles it; earlier
versions keep it. A shared part pasted in as written would then be indented
differently from the docstring around it, and numpydoc would no longer read its
section. So each part is indented to the column of the placeholder it replaces.
"""

import re

_MARGIN = "    "  # the margin a part's lines after the first are written with: a class docstring's in the source


def fill_placeholders(doc, parts):
    """Return ``doc`` with each key of ``parts`` replaced by its text, keys in the order given.

    A part's first line takes the key's place; its other lines, written with
    the four-space margin of a class docstring in the source, keep their
    indentation relative to the key's column. A part may hold a key that
    comes later in ``parts``.

    Parameters
    ----------
    doc : str
        The docstring with placeholders (``"{name}"``).
    parts : dict of str to str
        Placeholder -> the text it stands for.

    Returns
    -------
    str
        The docstring with every placeholder filled.

    Examples
    --------
    >>> part = "tol : float\\n        Stop when the centres move less."
    >>> print(fill_placeholders("Parameters\\n----------\\n{tol}\\n", {"{tol}": part}))
    Parameters
    ----------
    tol : float
        Stop when the centres move less.
    <BLANKLINE>
    """
    for key, text in parts.items():
        first, *rest = text.split("\n")
        rest = [line.removeprefix(_MARGIN) for line in rest]

        def fill(match, first=first, rest=rest):
            column = match.start() - (match.string.rfind("\n", 0, match.start()) + 1)
            return "\n".join([first, *(" " * column + line if line else line for line in rest)])

        doc = re.sub(re.escape(key), fill, doc)
    return doc
