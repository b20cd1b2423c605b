"""Every test runs with one torch thread: the tests' tensors are small, and on a 2-core CI machine a second thread
woken at every small op costs more than it brings."""
import pytest

from lib.science import engine


@pytest.fixture(autouse=True, scope="session")
def one_thread():
    with engine.one_cpu_thread("cpu"):
        yield
