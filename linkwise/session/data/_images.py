"""Images in a human session: a folder as the data, the digits demo (an image column's features: linkwise.intake)."""

import numpy as np

from linkwise._extras import requires
from linkwise.images import image_files, image_size
from linkwise.session.data._cache import cache_folder

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


DIGITS_INTRO = ("The demo: 1,797 handwritten digits, 0 to 9. A group is a digit: answer 'same' when A and B show "
                "the same digit, 'different' when not. You decide; linkwise asks only about the pairs it cannot "
                "tell apart, and groups the rest from your answers.")


def write_digits(folder=None):
    """Write scikit-learn's 1,797 handwritten digits (shipped with it) as 8 x 8 PNGs; files already there are kept.

    They stay 8 x 8: the page and the widget draw small images large, pixel by pixel (``image-rendering:
    pixelated``), while upscaled files (measured at 96 px) made the image features five times slower to compute
    and their clustering worse (K-means ARI .68 against .74). Returns the folder (default: ``digits`` in the user's
    cache folder, see :func:`~linkwise.session.data._cache.cache_folder`) and each image's digit, in file order.
    """
    from sklearn.datasets import load_digits

    with requires("images", "linkwise cluster --demo digits"):
        from PIL import Image
    digits = load_digits()
    folder = folder or cache_folder() / "digits"
    folder.mkdir(parents=True, exist_ok=True)
    for k, image in enumerate(digits.images):  # ink 0..16, drawn dark on white
        path = folder / f"digit-{k:04d}.png"
        if path.exists():
            continue
        pixels = (255 - image * 255 / 16).round().astype(np.uint8)
        partial = path.with_suffix(".part")  # renamed once written whole: an interrupted run leaves no broken image
        Image.fromarray(pixels).save(partial, format="PNG")
        partial.replace(path)
    return folder, digits.target
