"""Where the benchmarks write: the one place that knows the results folders.

Full-size runs write to ``benchmarks/results/`` (committed; the README and the
issue notes cite these figures). ``--quick`` runs (what ``make bench`` runs)
write to ``benchmarks/results/quick/`` (ignored by git), so a quick run never
replaces a full-size figure, and whatever a quick run reads back (a report it
appends to, a run it resumes) is the quick one too.
"""

from pathlib import Path

RESULTS = Path(__file__).parent / "results"
QUICK = RESULTS / "quick"


def results_path(name, quick):
    """``name`` (a report, a raw file or a run directory) in the results folder of the mode, which is created."""
    folder = QUICK if quick else RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name
