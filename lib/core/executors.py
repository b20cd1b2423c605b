"""Where a sweep's missing points run when not in this process: a pool of local worker processes, or the workers of
a Dask cluster. Each is a concurrent.futures executor, a count of its slots and a close function, so that one loop
in `lib.core.sweep.collect` serves both (the deadline included). Dask is imported only for a cluster: local
processes need no extra package or service."""
from __future__ import annotations

import os
import re

from lib.core.store import ROOT


class ClusterError(RuntimeError):
    """No Dask here, or no scheduler at the address: one line for the user."""


def _client(address: str):
    try:
        from distributed import Client
    except ImportError as err:
        raise ClusterError(f"--cluster needs Dask distributed (pip install distributed): {err}") from None
    try:
        return Client(address)   # waits distributed.comm.timeouts.connect (30 s; $DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)
    except Exception as err:   # no scheduler there (OSError), or Dask's configuration cannot reach it (tls:// without one)
        raise ClusterError(f"--cluster {address}: no Dask scheduler answered ({type(err).__name__}: {err})") from None


def import_failure(err: BaseException, address: str | None) -> None:
    """One line (ClusterError) where the cluster at `address` (None: none) could not import a module a point needs,
    and how to start it with this checkout on PYTHONPATH (Dask re-raises the remote error as a cause, or in its text)."""
    while address and err is not None:
        if m := re.search(r"No module named '([^']+)'", str(err)):
            raise ClusterError(f"--cluster {address}: the cluster could not import the module {m.group(1)!r} (its "
                               f"scheduler or workers run without this checkout on their PYTHONPATH): start them with "
                               f"PYTHONPATH={ROOT} dask scheduler, and PYTHONPATH={ROOT} dask worker {address}") from None
        err = err.__cause__ or err.__context__


def _worker_device() -> tuple[str, str]:
    """What `device: auto` is on a worker, and its name (runs there)."""
    import torch

    from lib.core.store import device_name

    device = "cuda" if torch.cuda.is_available() else "cpu"
    return device, device_name(device)


def cluster_device(address: str) -> tuple[str, str]:
    """(device, name) of the cluster's workers for `device: auto`, asked of one of them: `compute` may run on a
    machine without the workers' GPUs (a login node). The workers are assumed alike."""
    client = _client(address)
    try:
        return tuple(client.submit(_worker_device, pure=False).result())
    except Exception as err:
        import_failure(err, address)     # the scheduler or a worker without lib: one line, not Dask's traceback
        raise
    finally:
        client.close()


def cluster_executor(address: str):
    """A concurrent.futures executor on the Dask cluster at `address` (tcp://host:8786), its number of worker
    threads (a callable: workers may come and go), and a close function."""
    client = _client(address)
    executor = client.get_executor(pure=False)   # each point computed afresh, never a cached result

    def slots() -> int:
        return max(1, sum(client.nthreads().values()))

    def close(abandon: bool) -> None:
        executor.shutdown(wait=not abandon)       # abandon: cancel what is queued or running; its results are dropped
        client.close()

    return executor, slots, close


def _worker_init(threads: int, parent: int) -> None:
    import torch

    torch.set_num_threads(threads)
    _die_with_parent(parent)


def _die_with_parent(parent: int) -> None:
    """On Linux, have the kernel end this worker when the process that started it (pid `parent`) dies: a `compute`
    killed with SIGTERM or SIGKILL runs no cleanup, and its spawned workers would otherwise train on, orphaned, for
    nobody. A worker whose parent died before this ran (while it started) ends here: the kernel's signal is for the
    death of the parent it has when asked."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            return
        if os.getppid() != parent:
            os._exit(1)


def process_pool(jobs: int):
    """A pool of `jobs` spawned worker processes (CUDA cannot be used in a forked child), the CPU's threads shared
    among them, as an executor, its slots and a close function that stops the workers when abandoning."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    threads = max(1, (os.cpu_count() or 1) // jobs)
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init,
                               initargs=(threads, os.getpid()))

    def close(abandon: bool) -> None:
        if abandon:   # points still running at the deadline: stop their workers (nothing of theirs is stored)
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)

    return pool, (lambda: jobs), close
