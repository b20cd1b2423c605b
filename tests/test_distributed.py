"""`python -m lib compute --cluster ADDRESS`: the sweep's points computed on a Dask cluster (here a local one of two
worker processes) are stored with the same numbers as one process computes (tests/test_compute_jobs.py's tiny
Figure 1 sweep). The `compute` calls run as `python -m lib` does, each in its own process forked from one that has
imported torch (tests/forked.py)."""
import json
import os

import pytest

distributed = pytest.importorskip("distributed")

import forked  # noqa: E402 (after the importorskip)
import tiny_sweep  # noqa: E402
from tiny_sweep import PROFILE, one_process  # noqa: E402
from tiny_sweep import stored_numbers as _numbers  # noqa: E402


@pytest.fixture(scope="module")
def python():
    with forked.Server(tiny_sweep.env()) as server:
        yield server


def _compute(results, *extra, python, **env):
    return tiny_sweep.compute(results, *extra, python=python, **env)


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-threaded worker processes on 127.0.0.1 (the workers import lib: this process's
    sys.path, which holds the repository, goes with them)."""
    from distributed import LocalCluster

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                      silence_logs=40) as c:
        yield c.scheduler_address


def test_a_two_worker_cluster_stores_the_numbers_of_one_process(tmp_path, tmp_path_factory, cluster, python):
    (one, one_results), dask = one_process(tmp_path_factory, python), _compute(tmp_path / "dask", "--cluster", cluster,
                                                                               python=python)
    assert one.returncode == 0, one.stderr
    assert dask.returncode == 0, dask.stderr
    assert dask.stdout.count(" computed in ") == 6 and "[6/6]" in dask.stdout
    assert _numbers(one_results) == _numbers(tmp_path / "dask") and len(_numbers(one_results)) == 6
    comp = json.loads((tmp_path / "dask" / "sample_complexity" / PROFILE / "compute.json").read_text())
    assert comp["cluster"] == cluster and comp["device"].startswith("CPU")   # what a worker found for device: auto


def test_the_cluster_address_may_come_from_the_environment(tmp_path, cluster, python):
    env_results = tmp_path / "env"
    out = _compute(env_results, "--set", "N_a=[2]", python=python, BOOK_CLUSTER=cluster)
    assert out.returncode == 0, out.stderr
    assert json.loads((env_results / "sample_complexity" / PROFILE / "compute.json").read_text())["cluster"] == cluster


def test_no_scheduler_at_the_address_is_one_line_and_exit_1(tmp_path, monkeypatch, python):
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "2s")   # Dask's own setting (default 30 s)
    out = _compute(tmp_path, "--cluster", "tcp://127.0.0.1:9", "--set", "N_a=[2]", python=python)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "no Dask scheduler answered" in out.stderr
