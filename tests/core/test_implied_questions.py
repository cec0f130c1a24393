"""No question the earlier answers already settle is asked, unless it is a deliberate check (issue 28)."""

import pytest

import linkwise as lw
from tests.core.test_determinism import ESTIMATORS


def _method(name, seed):
    make = ESTIMATORS[name].replace("random_state=1", f"random_state={seed}")
    if name in ("Auto", "NoiseRobustCOBRAS"):  # long enough for checks and repairs
        make = make.replace("max_queries=15", "max_queries=40")
    return eval(make, {"lw": lw})


@pytest.mark.slow
@pytest.mark.parametrize("noise", [0.0, 0.15])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_question_the_answers_imply_is_only_asked_as_a_check(name, noise):
    X, y = lw.datasets.load("iris", scale="minmax")
    n_checks = 0
    for seed in range(3):
        session = lw.ActiveSession(_method(name, seed), X)
        oracle = lw.LabelOracle(y, noise=noise, random_state=seed)
        given = lw.ConstraintStore(len(y), tolerant=True)  # the answers as given, and their transitive closure
        while (pair := session.ask()) is not None:
            implied = given.relation(*pair)
            assert implied is None or session.checking, (
                f"{name} (seed {seed}) asked {pair} as question {session.n_queries + 1}, which the earlier answers "
                f"settle ({'same' if implied else 'different'} group), without saying it is a check")
            n_checks += session.checking
            answer = oracle.query(*pair)
            if answer is not None:
                given.add(*pair, answer)
            session.tell(pair, answer)
        assert not session.checking  # nothing pending: no check either
    if noise and name in ("Auto", "NoiseRobustCOBRAS"):
        assert n_checks > 0  # the property is exercised: these check wrong answers
