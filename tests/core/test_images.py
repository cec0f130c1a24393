"""Image features (linkwise.images) and images in a session: a folder, an image column, embeddings, the demo."""

import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from linkwise.exceptions import InvalidParameterError
from linkwise.images import image_features, load_folder

pytest.importorskip("skimage", reason="the images extra (scikit-image) is not installed")
from PIL import Image  # noqa: E402  (installed with scikit-image)

from linkwise.cli import main  # noqa: E402
from linkwise.session import load_data  # noqa: E402


def stripes(k, vertical, size=(24, 32), colour=(200, 30, 30)):
    """Stripes of period 6 (vertical or horizontal), shifted by ``k``, in ``colour`` on white, as uint8 RGB."""
    h, w = size
    line = (np.arange(w if vertical else h) + k) % 6 < 3
    mask = np.broadcast_to(line[None, :] if vertical else line[:, None], size)
    return np.where(mask[..., None], np.array(colour, np.uint8), np.uint8(255))


def gallery(folder, n=6):
    """``n`` images of each kind (vertical red, horizontal blue) as PNG files; their kinds in file order."""
    folder.mkdir(parents=True, exist_ok=True)
    kinds = []
    for k in range(2 * n):
        vertical = k % 2 == 0
        image = stripes(k, vertical, colour=(200, 30, 30) if vertical else (30, 30, 200))
        Image.fromarray(image).save(folder / f"img{k:02d}.png")
        kinds.append(int(vertical))
    return np.array(kinds)


def test_features_shape_determinism_and_colour_modes():
    rgb = stripes(0, True)
    X = image_features([rgb, rgb / 255, stripes(1, False)])
    assert X.shape == (3, 324 + 24) and np.isfinite(X).all()
    assert np.allclose(X[0], X[1])  # uint8 and floats in [0, 1] alike
    assert np.array_equal(X, image_features([rgb, rgb / 255, stripes(1, False)]))
    grey = rgb[..., 0]
    same = image_features([grey, np.repeat(grey[..., None], 3, axis=2), np.dstack([grey] * 3 + [np.full_like(grey, 255)])])
    assert np.allclose(same[0], same[1]) and np.allclose(same[0], same[2])  # greyscale, RGB, opaque RGBA
    clear = np.zeros((5, 7, 4))  # fully transparent: white
    assert np.allclose(image_features([clear]), image_features([np.ones((5, 7))]))
    assert image_features([rgb], cell=8, bins=4).shape == (1, 324 + 12)


def test_features_tell_shapes_and_colours_apart(tmp_path):
    from sklearn.cluster import KMeans

    kinds = gallery(tmp_path)
    files, X = load_folder(tmp_path)
    labels = KMeans(2, n_init=5, random_state=0).fit_predict(X)
    assert (labels == kinds).all() or (labels != kinds).all()
    arrays = image_features([np.asarray(Image.open(f)) for f in files])  # a file and its pixels: the same row
    assert np.allclose(X, arrays)


@pytest.mark.parametrize("image, message", [
    (np.full((4, 4), 2.0), r"images\[0\] has values outside \[0, 1\]"),
    (np.zeros((4, 4), np.int64), "dtype int64"),
    (np.zeros((4, 4, 2)), "has shape"),
    (np.zeros((0, 4)), "has shape"),
])
def test_bad_arrays_are_named(image, message):
    with pytest.raises(InvalidParameterError, match=message):
        image_features([image])


def test_folders_sorted_and_unreadable_files_named(tmp_path):
    with pytest.raises(InvalidParameterError, match="holds no image files"):
        load_folder(tmp_path)
    with pytest.raises(InvalidParameterError, match="is not a folder"):
        load_folder(tmp_path / "missing")
    gallery(tmp_path / "sub", n=1)
    gallery(tmp_path / ".hidden", n=1)
    Image.fromarray(stripes(0, True)).save(tmp_path / "b.JPG")
    (tmp_path / "notes.txt").write_text("not an image")
    files, X = load_folder(tmp_path)
    assert [f.relative_to(tmp_path).as_posix() for f in files] == ["b.JPG", "sub/img00.png", "sub/img01.png"]
    (tmp_path / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n broken")
    with pytest.raises(InvalidParameterError, match=f"The image {tmp_path / 'a.png'} cannot be read"):
        load_folder(tmp_path)


def test_a_folder_is_a_session_table(tmp_path):
    gallery(tmp_path / "photos", n=2)
    data = load_data(tmp_path / "photos")
    assert data.X.shape == (4, 348) and data.image_root == tmp_path / "photos"
    assert data.options["id_column"] == data.options["image_column"] == "file"
    assert data.item(1) == {"row": 1, "id": "img01.png", "fields": [["size", "32×24 px, 0.1 KB"]], "text": None,
                            "image": True, "image_error": None, "series": None}
    assert data.dropped_columns == {}


def test_image_column_and_embedding_columns_of_a_csv(tmp_path):
    gallery(tmp_path / "img", n=2)
    names = [f"img/img{k:02d}.png" for k in range(4)]
    only_paths = tmp_path / "paths.csv"
    pd.DataFrame({"name": list("abcd"), "picture": names}).to_csv(only_paths, index=False)
    images = load_data(only_paths, id_column="name", image_column="picture")  # no numeric column: the images
    assert np.allclose(images.X, load_data(tmp_path / "img").X)
    assert images.item(0)["fields"] == [["picture", "img/img00.png"]]  # the terminal shows the file's path
    frame = pd.DataFrame({f"emb_{k}": np.arange(4.0) * k for k in range(5)})
    frame.insert(0, "picture", names)
    frame["size"] = [1.0, 2, 3, 4]
    path = tmp_path / "emb.csv"
    frame.to_csv(path, index=False)
    assert load_data(path, image_column="picture").X.shape == (4, 6)  # numeric columns: the images are only shown
    assert load_data(path, features=["emb_1:emb_3"]).X.shape == (4, 3)
    both = load_data(path, image_column="picture", features=["size", "emb_0:emb_4", "picture"])
    assert both.X.shape == (4, 6 + 348) and both.options["features"] == ["size", "emb_0:emb_4", "picture"]
    frame.loc[2, "picture"] = "img/missing.png"
    frame.to_csv(path, index=False)
    with pytest.raises(InvalidParameterError, match="images of column 'picture': Image 'img/missing.png' not found"):
        load_data(path, image_column="picture", features=["picture"])


def test_folder_session_in_the_terminal_resumes(tmp_path):
    gallery(tmp_path / "photos", n=3)
    args = ["cluster", str(tmp_path / "photos"), "--ui", "terminal", "--method", "cobras", "--param", "random_state=0"]
    first = CliRunner().invoke(main, args, input="s\nq\n")
    assert first.exit_code == 0, first.output
    assert "img0" in first.output and "32×24 px, 0.1 KB" in first.output
    again = CliRunner().invoke(main, ["cluster", str(tmp_path / "photos"), "--ui", "terminal"], input="q\n")
    assert again.exit_code == 0 and "(1 question answered so far)" in again.output
    labels = pd.read_csv(tmp_path / "photos.labels.csv")
    assert labels["id"].tolist() == [f"img{k:02d}.png" for k in range(6)]


def test_digits_demo_writes_8x8_images_once(tmp_path, monkeypatch):
    from sklearn.datasets import load_digits

    from linkwise.session.data._images import write_digits

    folder, digits = write_digits(tmp_path / "digits")
    files = sorted(folder.iterdir())
    assert len(files) == 1797 and (digits == load_digits().target).all()
    for k in (0, 5, 1796):
        assert Image.open(files[k]).size == (8, 8)
        ink = 255 - np.asarray(Image.open(files[k]), dtype=float)
        assert np.allclose(ink * 16 / 255, load_digits().images[k], atol=0.05)
    written = [f.stat().st_mtime_ns for f in files]
    files[3].unlink()
    again, _ = write_digits(tmp_path / "digits")  # only the missing one is written again
    assert again == folder and [f.stat().st_mtime_ns for f in sorted(folder.iterdir())][4:] == written[4:]
    assert len(list(folder.iterdir())) == 1797
    monkeypatch.chdir(tmp_path)
    both = CliRunner().invoke(main, ["cluster", str(folder), "--demo", "digits"])
    neither = CliRunner().invoke(main, ["cluster"])
    assert both.exit_code == neither.exit_code == 2 and "Give either DATA" in both.output + neither.output


@pytest.mark.slow
def test_the_digits_demo_says_what_a_group_is_writes_its_images_to_the_cache_and_hints_only_when_asked(
        tmp_path, monkeypatch):
    from sklearn.datasets import load_digits

    from linkwise.session.data._images import DIGITS_INTRO

    cache = tmp_path / "cache"
    monkeypatch.setenv("LINKWISE_CACHE", str(cache))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    run = CliRunner().invoke(main, ["cluster", "--demo", "digits", "--method", "cobras", "--param", "random_state=0",
                                    "--ui", "terminal"], input="s\nh\nd\nh\nq\n", terminal_width=120)
    assert run.exit_code == 0, run.output
    lines = run.output.splitlines()
    assert lines[0] == DIGITS_INTRO and "A group is a digit" in DIGITS_INTRO and "You decide" in DIGITS_INTRO
    assert lines[1] == f"The images: {cache / 'digits'}"
    assert len(list((cache / "digits").glob("digit-*.png"))) == 1797
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["linkwise-digits.labels.csv",
                                                                      "linkwise-digits.linkwise.db"]
    questions = run.output.split("do A and B belong to the same group?")[1:]
    assert len(questions) == 5  # 1; 2, with its hint once asked; 3 (answered: no hint), with its hint
    target = load_digits().target
    for k, question in enumerate(questions):
        ids = re.findall(r"│ file +│ digit-(\d{4})\.png +│ digit-(\d{4})\.png +│", question)[0]
        hint = re.findall(r"│ hint +│ the digit (\d) +│ the digit (\d) +│", question)
        assert hint == ([tuple(str(target[int(i)]) for i in ids)] if k in (2, 4) else [])
        assert ("[h] hide the hint" if k in (2, 4) else "[h] hint") in question
