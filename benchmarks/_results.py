"""Where the benchmarks write: the one place that knows the results folders.

Full-size runs write to ``benchmarks/results/`` (committed; the README and the
issue notes cite these figures). ``--quick`` runs (what ``make bench`` runs)
write to ``benchmarks/results/quick/`` (ignored by git), so a quick run never
replaces a full-size figure, and whatever a quick run reads back (a report it
appends to, a run it resumes) is the quick one too.
"""

import re
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
QUICK = RESULTS / "quick"


def results_path(name, quick):
    """``name`` (a report, a raw file or a run directory) in the results folder of the mode, which is created."""
    folder = QUICK if quick else RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def write_section(path, section, lines, title="# Human sessions"):
    """Replace the ``## section`` of the report ``path`` by ``lines`` (its heading first), where it stood; a new
    section goes at the end. The other sections are kept as they are."""
    text = path.read_text() if path.exists() else f"{title}\n"
    parts = [part.rstrip("\n") for part in re.split(r"\n(?=## )", text)]
    new = "\n".join(lines).rstrip()
    at = next((k for k, part in enumerate(parts) if part.startswith(section)), None)
    parts = parts + [new] if at is None else parts[:at] + [new] + parts[at + 1:]
    path.write_text("\n\n".join(parts) + "\n")
