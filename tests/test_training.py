"""lib/science/training.fit, the one training loop outside Figure 1's engine: R stacked runs train exactly as R runs
trained one at a time, and `after` stops the loop."""
import torch

from lib.science.training import fit


def test_stacked_runs_train_as_separate_runs():
    gen = torch.Generator().manual_seed(0)
    X, y = torch.randn(3, 5, 3, generator=gen), torch.randn(3, 5, generator=gen)
    w0 = torch.randn(3, 3, generator=gen)
    w = w0.clone().requires_grad_()
    opt = torch.optim.AdamW([w], lr=0.05, weight_decay=0.1)
    fit(opt, lambda step: ((torch.einsum("rnk,rk->rn", X, w) - y).pow(2).mean(1), None), 40)
    for r in range(3):                                   # run r alone, with its own optimiser
        v = w0[r].clone().requires_grad_()
        o = torch.optim.AdamW([v], lr=0.05, weight_decay=0.1)
        fit(o, lambda step, r=r, v=v: ((X[r] @ v - y[r]).pow(2).mean(), None), 40)
        torch.testing.assert_close(w[r].detach(), v.detach(), rtol=1e-6, atol=1e-7)


def test_after_sees_every_step_and_stops_the_loop():
    w = torch.zeros(2, requires_grad=True)
    seen = []

    def after(step, loss, out):
        seen.append((step, out))
        return step == 4

    taken = fit(torch.optim.SGD([w], lr=0.1), lambda step: ((w - 1).pow(2), step * 10), 100, after)
    assert taken == 4 and seen == [(1, 10), (2, 20), (3, 30), (4, 40)]
    assert w.grad is None                                # gradients cleared after every step


def test_clip_runs_between_backward_and_step():
    w = torch.zeros(1, requires_grad=True)
    fit(torch.optim.SGD([w], lr=1.0), lambda step: (-100 * w, None), 1, clip=lambda: w.grad.clamp_(-1, 1))
    assert float(w.detach()) == 1.0                      # the clipped gradient (-1), not -100
