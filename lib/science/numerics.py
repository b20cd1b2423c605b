"""General numerical machinery in plain numpy: least squares on a matrix's range, a box-constrained
Levenberg-Marquardt solver, and variable projection for separable least squares (sums of parametrised columns
with linear coefficients), with iteratively reweighted rounds towards the weighted l1 error.

Plain numpy throughout, so that the same inputs give the same bits in any process and in any order of calls
(scipy 1.17's C port of MINPACK did not; see `levenberg_marquardt`).

    >>> levenberg_marquardt(lambda x: (x - 3.0, np.eye(1)), np.zeros(1), -10, 10, 20)   # (x, evaluations)
    (array([3.]), 8)
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

# basis(theta) -> (E, dE/dtheta): the columns of a separable model at its sample points and their derivatives,
# each (n_points, n_columns); column j depends on theta[j] only.
Basis = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def lstsq_range(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares coefficients x of A x ~ b and an orthonormal basis of A's range (SVD, singular values below
    1e-15 of the largest dropped); zeros and an empty basis if the SVD does not converge."""
    try:
        U, sv, Vt = np.linalg.svd(A, full_matrices=False)
    except np.linalg.LinAlgError:
        return np.zeros(A.shape[1]), np.zeros((A.shape[0], 0))
    keep = sv > sv[0] * 1e-15 if sv.size and sv[0] > 0 else np.zeros(sv.shape, bool)
    U, sv, Vt = U[:, keep], sv[keep], Vt[keep]
    return Vt.T @ ((U.T @ b) / sv), U


def varpro_residual(E: np.ndarray, dE: np.ndarray, sw: np.ndarray, bw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Residuals and Kaufman's Jacobian of variable projection, from one SVD: with the coefficients alpha solved
    by weighted least squares (rows scaled by sw, target bw = sw * b), r = bw - sw * (E alpha) and
    J = -P_perp (sw * dE) alpha, P_perp the projector off the range of sw * E."""
    alpha, U = lstsq_range(sw[:, None] * E, bw)
    J = -(sw[:, None] * dE) * alpha[None, :]
    return bw - sw * (E @ alpha), J - U @ (U.T @ J)


def levenberg_marquardt(fj, x0: np.ndarray, lo: float, hi: float, max_nfev: int, xtol: float = 1e-12,
                        ftol: float = 1e-12, gtol: float = 1e-10) -> tuple[np.ndarray, int]:
    """Minimise |r(x)|^2 for x in [lo, hi]^n, where fj(x) -> (r, J) gives the residuals and their Jacobian.

    Marquardt's scaling (D = the largest column norms of J seen so far) and Nielsen's damping update; each step
    solves the damped problem min |J d + r|^2 + lam |D d|^2 as an augmented least-squares problem (no normal
    equations) and is projected onto the box. Plain numpy, so the same inputs give the same optimum in any
    process: scipy 1.17's C port of MINPACK did not (12 of 66 paper-grid fits changed with the order of the fits, and
    even one fit alone in identical fresh processes sometimes came out different).

        >>> levenberg_marquardt(lambda x: (x - 3.0, np.eye(1)), np.zeros(1), -10, 10, 20)
        (array([3.]), 8)
    """
    x = np.clip(np.asarray(x0, float), lo, hi)
    r, J = fj(x)
    nfev, cost = 1, float(r @ r)
    D = np.zeros(len(x))
    lam, nu = 0.1, 2.0                                     # damping relative to the scaled J^T J (~1)
    while nfev < max_nfev and np.isfinite(cost) and cost > 0:
        D = np.maximum(D, np.linalg.norm(J, axis=0))
        scale = np.where(D > 0, D, 1.0)
        if np.max(np.abs(J.T @ r) / scale) <= gtol * math.sqrt(cost):
            break                                          # r is orthogonal to every column of J: stationary
        A = np.vstack([J, np.diag(math.sqrt(lam) * scale)])
        step = np.linalg.lstsq(A, np.concatenate([-r, np.zeros(len(x))]), rcond=None)[0]
        xn = np.clip(x + step, lo, hi)
        rn, Jn = fj(xn)
        nfev += 1
        costn = float(rn @ rn)
        moved = np.linalg.norm(scale * (xn - x))
        if np.isfinite(costn) and costn < cost:
            predicted = cost - float(np.sum((r + J @ (xn - x)) ** 2))
            gain = (cost - costn) / predicted if predicted > 0 else 1.0
            lam, nu = lam * max(1 / 3, 1 - (2 * gain - 1) ** 3), 2.0
            done = cost - costn <= ftol * cost or moved <= xtol * (np.linalg.norm(scale * x) + xtol)
            x, r, J, cost = xn, rn, Jn, costn
            if done:
                break
        else:
            lam, nu = lam * nu, nu * 2
            if moved <= xtol * (np.linalg.norm(scale * x) + xtol):
                break                                      # the damped step has shrunk to nothing
    return x, nfev


def separable_l1_fit(basis: Basis, b: np.ndarray, w: np.ndarray, starts: list[np.ndarray], lo: float, hi: float,
                     rounds: int, max_nfev: int) -> dict:
    """The best sum of columns E(theta) alpha for the target b under the weighted l1 error sum w |b - E alpha|.

    Variable projection: for parameters theta the coefficients alpha are the weighted least-squares solution, so
    only theta is optimised (`levenberg_marquardt` in [lo, hi], with `varpro_residual`'s Jacobian). From each
    start, round 0 minimises the l2 error sum w r^2; rounds 1..`rounds` reweight by 1/max(|r|, 1e-14) towards the
    l1 error (IRLS). Returns the best l1 error with its theta and alpha, the best l2 error of every round, and the
    residual evaluations spent (nfev).
    """
    best = {"l1": math.inf, "l2": math.inf, "theta": None, "alpha": None, "nfev": 0}
    for th in starts:
        weights = w.copy()
        for _ in range(rounds + 1):
            sw = np.sqrt(np.maximum(weights / weights.max(), 1e-30))
            bw = sw * b

            def fj(t, sw=sw, bw=bw):
                return varpro_residual(*basis(t), sw, bw)

            th, nfev = levenberg_marquardt(fj, th, lo, hi, max_nfev)
            best["nfev"] += nfev
            E = basis(th)[0]
            alpha = lstsq_range(sw[:, None] * E, bw)[0]
            res = b - E @ alpha
            l1, l2 = float(np.sum(w * np.abs(res))), float(np.sqrt(np.sum(w * res ** 2)))
            if np.isfinite(l1) and l1 < best["l1"]:
                best.update(l1=l1, theta=th.copy(), alpha=alpha.copy())
            if np.isfinite(l2):
                best["l2"] = min(best["l2"], l2)
            weights = w / np.maximum(np.abs(res), 1e-14)
    return best
