"""Test-wide settings: a private tuning database, so no developer's own tuning results
change what the tests compile."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def private_tuning_database(tmp_path_factory):
    path = tmp_path_factory.mktemp("tuning") / "tuning.sqlite"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MDH_TUNING_DB", str(path))
        yield path
