"""Fixtures shared by the test modules (pytest finds them by name: never import this module).

Helpers that are plain functions or classes (``iris_csv``, ``Scripted``,
``Server``, ...) live in :mod:`tests.e2e.helpers` and :mod:`tests.reference`;
the web server and browser pieces are imported inside the fixtures that need
them, so that collecting the core tests does not need the session extras.
"""

import pytest

import linkwise as lw


def pytest_collection_modifyitems(items):
    """Run the slow and browser tests first (in their order): with ``-n 2`` the workers then end on short tests
    together, instead of one waiting for the other's last docs build or JupyterLab test."""
    items.sort(key=lambda item: not (item.get_closest_marker("slow") or item.get_closest_marker("browser")))


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch):
    # sessions write resume points to the user's cache folder when closed: each test (and what it starts) its own
    monkeypatch.setenv("LINKWISE_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def iris():
    """Iris scaled to [0, 1], ``(X, y)``, shared by every test: read-only (copy it to change it)."""
    X, y = lw.datasets.load("iris", scale="minmax")
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


@pytest.fixture
def iris_file(tmp_path):
    """``(path, y)``: iris as a person's CSV in ``tmp_path`` (:func:`tests.e2e.helpers.iris_csv`)."""
    from tests.e2e.helpers import iris_csv

    return iris_csv(tmp_path)


@pytest.fixture
def iris_data(iris_file):
    """``(data, y)``: that CSV loaded for a session, its ``name`` column as the ids."""
    from linkwise.session import load_data

    path, y = iris_file
    return load_data(path, id_column="name"), y


@pytest.fixture
def live(tmp_path):
    """``live(data, estimator=None, labels_name=...)`` serves a new session in ``tmp_path`` over HTTP.

    Returns ``(server, session)``: a :class:`tests.e2e.helpers.LiveServer` and its
    :class:`~linkwise.session.HumanSession` (COBRAS with ``random_state=0`` by default);
    both are closed after the test.
    """
    from linkwise.session import HumanSession
    from tests.e2e.helpers import LiveServer

    servers = []

    def start(data, estimator=None, labels_name="labels.csv"):
        session = HumanSession(tmp_path / "s.db", data, estimator or lw.COBRAS(random_state=0))
        server = LiveServer(session, tmp_path / labels_name)
        servers.append((server, session))
        return server, session

    yield start
    for server, session in servers:
        server.stop()
        session.close()
