"""Images in a human session: a folder as the data, the digits demo (an image column's features: linkwise.intake)."""

import numpy as np

from linkwise._extras import requires
from linkwise.images import image_files, image_size

with requires("session", "linkwise.session"):
    import pandas as pd

FILE = "file"  # a folder's table: the image's path in the folder (its id and image column) and its size


def folder_table(folder):
    """One row per image file under ``folder``: its path relative to the folder and its size."""
    files = image_files(folder)
    sizes = []
    for path in files:
        width, height = image_size(path)
        sizes.append(f"{width}×{height} px, {path.stat().st_size / 1024:.1f} KB")
    return pd.DataFrame({FILE: [p.relative_to(folder).as_posix() for p in files], "size": sizes})


def write_digits(folder):
    """Write scikit-learn's 1,797 handwritten digits (shipped with it) as 8×8 PNGs in ``folder``; return it."""
    from sklearn.datasets import load_digits

    with requires("images", "linkwise cluster --demo digits"):
        from PIL import Image
    folder.mkdir(exist_ok=True)
    for k, image in enumerate(load_digits().images):  # ink 0..16, drawn dark on white
        Image.fromarray((255 - image * 255 / 16).round().astype(np.uint8)).save(folder / f"digit-{k:04d}.png")
    return folder
