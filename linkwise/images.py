"""Image features without a network: shape (HOG) and colour (HSV histograms), the ``images`` extra.

The descriptor is small, deterministic and offline: each image is composited
over white, its greyscale resized to 4 x 4 HOG cells (aspect ratio not
kept) and described by a histogram of oriented gradients (Dalal & Triggs,
CVPR 2005; 4 x 4 cells, 9 orientations, 2 x 2 blocks), and its colours by
hue, saturation and value histograms (Swain & Ballard, IJCV 1991). Each part
is scaled to unit length, so shape and colour weigh alike. No registry
package was found that ships pretrained CNN weights usable without PyTorch;
to cluster on CLIP or similar, compute the embeddings yourself and name their
columns (``linkwise cluster data.csv --features emb_0:emb_511``).
"""

from contextlib import contextmanager
from numbers import Integral
from pathlib import Path

import numpy as np

from linkwise._extras import requires
from linkwise._validation import Interval, InvalidParameterError, validate_args

__all__ = ["image_features", "load_folder", "image_files", "IMAGE_TYPES"]

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".bmp": "image/bmp"}  # no SVG: it can carry script
_ORIENTATIONS = 9


@contextmanager
def _reading(path):
    """The image file opened with Pillow (installed with scikit-image); a failure to read it names the file."""
    with requires("images", "linkwise.images"):
        from PIL import Image
    try:
        with Image.open(path) as image:
            yield image
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:  # SyntaxError: a broken PNG
        raise InvalidParameterError(f"The image {path} cannot be read ({exc}); remove or replace that file.") from None


def _open(path, size):
    """The file as an RGBA array in [0, 1], at most 4 ``size`` wide (a thumbnail keeps it fast)."""
    from PIL import ImageOps

    with _reading(path) as image:
        image.draft("RGB", (4 * size, 4 * size))  # JPEG decodes at a fraction of its size
        image = ImageOps.exif_transpose(image)  # as a browser shows it
        image.thumbnail((4 * size, 4 * size))
        return np.asarray(image.convert("RGBA"), dtype=np.float64) / 255


def image_size(path):
    """(width, height) of the image file ``path``, read from its header."""
    with _reading(path) as image:
        return image.size


def _array(image, k):
    """``images[k]`` given as an array: greyscale or RGB(A), floats in [0, 1] or uint8 / uint16 / bool."""
    a = np.asarray(image)
    where = f"images[{k}]"
    if a.ndim == 2:
        a = a[..., None]
    if a.ndim != 3 or a.shape[2] not in (1, 3, 4) or 0 in a.shape:
        raise InvalidParameterError(f"{where} has shape {np.shape(image)}; an image is (height, width) for "
                                    "greyscale or (height, width, 3 or 4) for RGB(A).")
    if a.dtype.kind == "f":
        if not (np.isfinite(a).all() and 0 <= a.min() and a.max() <= 1):
            raise InvalidParameterError(f"{where} has values outside [0, 1] (max {a.max():g}); divide it by its "
                                        "maximum or pass uint8 pixels.")
    elif a.dtype in (np.uint8, np.uint16, np.bool_):
        a = a / (1 if a.dtype == np.bool_ else np.iinfo(a.dtype).max)
    else:
        raise InvalidParameterError(f"{where} has dtype {a.dtype}; give floats in [0, 1] or uint8 pixels, "
                                    "or a path to an image file.")
    return a.astype(np.float64)


def _unit(v):
    norm = np.linalg.norm(v)
    return v / norm if norm > 0 else v


@validate_args({"cell": [Interval(Integral, 2, None, closed="left")], "bins": [Interval(Integral, 1, None, closed="left")]})
def image_features(images, *, cell=16, bins=8):
    """Describe each image by its shapes and colours: one feature row per image.

    Parameters
    ----------
    images : sequence of str, Path or ndarray
        Image files (PNG, JPEG, GIF, WebP, BMP, and whatever else Pillow
        reads) or arrays of shape (height, width) or (height, width, 3 or 4)
        holding floats in [0, 1] or uint8 / uint16 pixels; any size.
        Transparent pixels count as white.
    cell : int, default=16
        Side of a HOG cell in pixels: the greyscale image is resized to
        4 x 4 cells.
    bins : int, default=8
        Bins of each of the hue, saturation and value histograms.

    Returns
    -------
    ndarray of shape (n_images, 324 + 3 * bins)
        HOG then colour histograms, each part of unit length.

    Raises
    ------
    InvalidParameterError
        An image that cannot be read (naming the file) or an array of the
        wrong shape or values (naming its index).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = image_features([rng.random((30, 40)), rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)])
    >>> X.shape
    (2, 348)
    """
    cell, bins = int(cell), int(bins)
    size = 4 * cell
    with requires("images", "linkwise.images"):
        from skimage import color, feature, transform
    rows = []
    for k, image in enumerate(images):
        a = _open(image, size) if isinstance(image, (str, Path)) else _array(image, k)
        if a.shape[2] < 3:
            a = np.repeat(a, 3, axis=2)
        if a.shape[2] == 4:
            a = a[..., :3] * a[..., 3:] + 1 - a[..., 3:]  # over white, as the page shows it
        grey = transform.resize(color.rgb2gray(a), (size, size), anti_aliasing=True)
        shape = feature.hog(grey, orientations=_ORIENTATIONS, pixels_per_cell=(cell, cell), cells_per_block=(2, 2))
        which = np.minimum(color.rgb2hsv(a) * bins, bins - 1).astype(np.intp) + np.arange(3) * bins
        colour = np.bincount(which.ravel(), minlength=3 * bins).astype(np.float64)  # h, s, v histograms
        rows.append(np.concatenate([_unit(shape), _unit(colour)]))
    if not rows:
        raise InvalidParameterError("The 'images' argument of image_features is empty; give at least one image.")
    return np.array(rows)


def image_files(folder):
    """List the image files under ``folder``, sub-folders too (hidden ones skipped).

    Parameters
    ----------
    folder : str or Path
        The folder searched.

    Returns
    -------
    list of Path
        The image files (by suffix), sorted by path; never empty.

    Raises
    ------
    InvalidParameterError
        If ``folder`` holds no image file.

    Examples
    --------
    >>> import tempfile
    >>> image_files(tempfile.mkdtemp())
    Traceback (most recent call last):
    linkwise.exceptions.InvalidParameterError: The folder ... holds no image files (.png, .jpg, .jpeg, .gif, .webp, .bmp).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InvalidParameterError(f"The folder {folder} does not exist or is not a folder.")
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_TYPES and p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    if not files:
        raise InvalidParameterError(f"The folder {folder} holds no image files ({', '.join(IMAGE_TYPES)}).")
    return files


def load_folder(folder, **kwargs):
    """Read the image files of a folder and describe them.

    Parameters
    ----------
    folder : str or Path
        The folder searched, sub-folders too (:func:`image_files`).
    **kwargs
        Passed to :func:`image_features` (``cell``, ``bins``).

    Returns
    -------
    files : list of Path
        Sorted by path (:func:`image_files`).
    X : ndarray of shape (n_files, n_features)
        One feature row per file, in the order of ``files``.

    Raises
    ------
    InvalidParameterError
        No image in the folder, or a file that cannot be read (named).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from PIL import Image
    >>> folder = tempfile.mkdtemp()
    >>> for k in range(3):
    ...     Image.fromarray(np.full((10, 12), 80 * k, dtype=np.uint8)).save(f"{folder}/{k}.png")
    >>> files, X = load_folder(folder)
    >>> [f.name for f in files], X.shape
    (['0.png', '1.png', '2.png'], (3, 348))
    """
    files = image_files(folder)
    return files, image_features(files, **kwargs)
