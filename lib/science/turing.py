"""Single-tape Turing machines: an interpreter with the halting convention of this book, and a catalogue.

Conventions (this book's, where Section 4 and Appendix C of Wei, Chen & Ma 2022 leave them open): symbol 0 is the
blank; the input x occupies cells c0+1 .. c0+m (the c0 cells to its left are blank, so two-way machines never fall
off cell 0); the head starts at c0+1 in state `init`; every step applies S(z, a) = (z', u, q), writes u under the
head and moves q = -1 or +1 (no "stay"). A terminal state (accept or reject) writes back what it reads and moves
right, so the tape never changes after halting. The trace records, for i = 0..T, the state z_i, the symbol a_i under
the head and the head cell l_i at the end of step i (step 0 is the start), and for i >= 1 the symbol u_i written at
cell l_{i-1} during step i.

    >>> tr = run(catalogue()["bb3"], [], T=20, c0=20); tr.halt_step, tr.ones
    (14, 6)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

L, R = -1, +1


class TMError(ValueError):
    """A machine, input or horizon outside what the interpreter and the Transformer both define: raised, with one
    line naming the machine and what is wrong, by `validate` and `check_run` on both sides."""


@dataclass
class TM:
    """A machine: states 0..k-1, `accept` and `reject` among them (terminal), alphabet 0..n_sym-1 (0 = blank),
    delta[z][a] = (z', u, q) for every non-terminal z. `two_way`: the head may go left of the input (c0 = T)."""
    name: str
    n_states: int
    n_sym: int
    delta: dict
    init: int = 0
    accept: tuple = ()
    reject: tuple = ()
    two_way: bool = False
    state_names: list = field(default_factory=list)

    def __post_init__(self):
        validate(self)

    @property
    def terminal(self) -> tuple:
        return tuple(self.accept) + tuple(self.reject)

    def step(self, z: int, a: int) -> tuple[int, int, int]:
        """S(z, a), with the terminal rule (z, a, +1)."""
        if z in self.terminal:
            return z, a, R
        return self.delta[z][a]

    def table(self) -> np.ndarray:
        """(k, n_sym, 3) int array of S, terminal rows included."""
        return np.array([[self.step(z, a) for a in range(self.n_sym)] for z in range(self.n_states)], dtype=np.int64)

    def offset(self, T: int) -> int:
        """c0, the blank cells left of the input: T for two-way machines (enough for any T steps), else 1."""
        return T if self.two_way else 1


@dataclass
class Trace:
    z: np.ndarray          # (T+1,) state at the end of step i
    a: np.ndarray          # (T+1,) symbol under the head
    l: np.ndarray          # (T+1,) head cell
    u: np.ndarray          # (T+1,) symbol written during step i (u[0]: the pre-start blank written at c0)
    wl: np.ndarray         # (T+1,) cell written during step i, l_{i-1} (wl[0] = c0)
    last: np.ndarray       # (T+1,) i' = last step t <= i with wl[t] == l[i], -1 if none
    in_input: np.ndarray   # (T+1,) 1 if 1 <= l_i <= c0 + m (the encoder holds that cell)
    halted: bool
    halt_step: int         # the step that entered a terminal state (-1 if none)
    accepted: bool
    ones: int              # non-blank cells at the end
    tape: dict             # cell -> symbol at the end
    c0: int
    m: int


def _whole(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def validate(tm: TM) -> TM:
    """Check a machine's definition (both the interpreter and tm_transformer.build call this): whole-number sizes,
    init, accept and reject among the states, no state both accepting and rejecting, and for every non-terminal
    state and every symbol a transition (z', u, q) with z' a state, u a symbol and q = -1 or +1 (no stay)."""
    name = tm.name
    if not _whole(tm.n_states) or tm.n_states < 1:
        raise TMError(f"{name}: n_states: expected a whole number >= 1, got {tm.n_states!r}")
    if not _whole(tm.n_sym) or tm.n_sym < 2:
        raise TMError(f"{name}: n_sym: expected a whole number >= 2 (the blank and one symbol), got {tm.n_sym!r}")
    for what, states in (("init", (tm.init,)), ("accept", tm.accept), ("reject", tm.reject)):
        bad = [z for z in states if not _whole(z) or not 0 <= z < tm.n_states]
        if bad:
            raise TMError(f"{name}: {what}: expected states in 0..{tm.n_states - 1}, got {bad[0]!r}")
    both = sorted(set(tm.accept) & set(tm.reject))
    if both:
        raise TMError(f"{name}: state {both[0]} is both accepting and rejecting; expected disjoint accept and reject")
    terminal = set(tm.accept) | set(tm.reject)
    for z in range(tm.n_states):
        if z in terminal:
            continue
        row = tm.delta.get(z) if isinstance(tm.delta, dict) else None
        if not isinstance(row, dict) or sorted(row) != list(range(tm.n_sym)):
            raise TMError(f"{name}: delta[{z}]: expected a transition for each symbol 0..{tm.n_sym - 1}, got "
                          f"{sorted(row) if isinstance(row, dict) else row!r}")
        for a, rule in row.items():
            ok = isinstance(rule, (tuple, list)) and len(rule) == 3
            z2, u, q = rule if ok else (None, None, None)
            if not (ok and _whole(z2) and 0 <= z2 < tm.n_states and _whole(u) and 0 <= u < tm.n_sym
                    and _whole(q) and q in (L, R)):
                raise TMError(f"{name}: delta[{z}][{a}] = {rule!r}: expected (state in 0..{tm.n_states - 1}, "
                              f"symbol in 0..{tm.n_sym - 1}, move -1 or +1)")
    return tm


def check_run(tm: TM, x, T, c0) -> None:
    """Check one run's input and horizon: T a whole number >= 0, c0 a whole number >= 0, input symbols in
    1..n_sym-1 (0 is the blank, which an input cannot hold)."""
    if not _whole(T) or T < 0:
        raise TMError(f"{tm.name}: T: expected a whole number of steps >= 0, got {T!r}")
    if not _whole(c0) or c0 < 0:
        raise TMError(f"{tm.name}: c0: expected a whole number of blank cells >= 0, got {c0!r}")
    bad = [s for s in x if not _whole(s) or not 1 <= s < tm.n_sym]
    if bad:
        raise TMError(f"{tm.name}: input symbol {bad[0]!r}: expected symbols in 1..{tm.n_sym - 1} (0 is the blank)")


def run(tm: TM, x, T: int, c0: int | None = None) -> Trace:
    """Run tm on input x (symbols 1..n_sym-1) for T steps, with the conventions of the module docstring. A head that
    moves left of cell 0 is an error (TMError), never a wrap-around."""
    validate(tm)
    c0 = tm.offset(T) if c0 is None and _whole(T) else c0
    check_run(tm, list(x), T, c0)
    x = [int(s) for s in x]
    tape = {c0 + 1 + j: s for j, s in enumerate(x)}
    z, l = tm.init, c0 + 1
    zs, as_, ls, us, wls = [z], [tape.get(l, 0)], [l], [0], [c0]
    writer = {c0: 0}                       # the pre-start step 0 wrote a blank at c0
    last = [writer.get(l, -1)]
    halt_step = 0 if z in tm.terminal else -1
    for i in range(1, T + 1):
        z, u, q = tm.step(z, tape.get(l, 0))
        tape[l] = u
        writer[l] = i
        wls.append(l)
        l = l + q
        if l < 0:
            raise TMError(f"{tm.name}: the head moves left of cell 0 at step {i} (input {x}, c0 = {c0}); expected a "
                          "machine that stays on the tape, or a larger c0")
        if halt_step < 0 and z in tm.terminal:
            halt_step = i
        zs.append(z); as_.append(tape.get(l, 0)); ls.append(l); us.append(u); last.append(writer.get(l, -1))
    ls = np.array(ls)
    return Trace(z=np.array(zs), a=np.array(as_), l=ls, u=np.array(us), wl=np.array(wls), last=np.array(last),
                 in_input=((ls >= 1) & (ls <= c0 + len(x))).astype(np.int64), halted=halt_step >= 0,
                 halt_step=halt_step, accepted=halt_step >= 0 and zs[-1] in tm.accept,
                 ones=sum(1 for s in tape.values() if s != 0), tape=tape, c0=c0, m=len(x))


def max_position(tm: TM, T: int, m: int, c0: int | None = None) -> int:
    """The largest cell or time index a run of T steps can name: max(c0 + 1 + T, c0 + m, T)."""
    c0 = tm.offset(T) if c0 is None else c0
    return max(c0 + 1 + T, c0 + m, T)


# ---------------------------------------------------------------------------------------------- catalogue
def _compile(name, states, symbols, rules, init, accept=(), reject=(), two_way=False) -> TM:
    """rules: {(state, symbol): (state', symbol', 'L'|'R')} with names; every (non-terminal, symbol) pair needed."""
    si, ai = {s: i for i, s in enumerate(states)}, {s: i for i, s in enumerate(symbols)}
    delta = {}
    for z in states:
        if z in accept or z in reject:
            continue
        delta[si[z]] = {}
        for a in symbols:
            z2, u, q = rules[(z, a)]
            delta[si[z]][ai[a]] = (si[z2], ai[u], L if q == "L" else R)
    return TM(name, len(states), len(symbols), delta, si[init], tuple(si[s] for s in accept),
              tuple(si[s] for s in reject), two_way, list(states))


def parity() -> TM:
    """Accept iff the binary input has an even number of 1s; one pass to the right (never revisits a cell)."""
    r = {}
    for z, other in (("E", "O"), ("O", "E")):
        r[(z, "0")] = (z, "0", "R"); r[(z, "1")] = (other, "1", "R")
    r[("E", "_")] = ("ACC", "_", "R"); r[("O", "_")] = ("REJ", "_", "R")
    return _compile("parity", ["E", "O", "ACC", "REJ"], ["_", "0", "1"], r, "E", ["ACC"], ["REJ"])


def increment() -> TM:
    """Binary increment (MSB first): run right to the end, then carry leftwards; revisits every cell."""
    r = {("S", "0"): ("S", "0", "R"), ("S", "1"): ("S", "1", "R"), ("S", "_"): ("C", "_", "L"),
         ("C", "1"): ("C", "0", "L"), ("C", "0"): ("ACC", "1", "L"), ("C", "_"): ("ACC", "1", "L")}
    return _compile("increment", ["S", "C", "ACC"], ["_", "0", "1"], r, "S", ["ACC"])


def palindrome() -> TM:
    """Accept iff the binary input is a palindrome: erase the first symbol, check the last, come back (8 states,
    O(m^2) steps, heavy overwriting)."""
    r = {("S", "0"): ("R0", "_", "R"), ("S", "1"): ("R1", "_", "R"), ("S", "_"): ("ACC", "_", "R")}
    for k in ("0", "1"):
        for a in ("0", "1"):
            r[(f"R{k}", a)] = (f"R{k}", a, "R")
        r[(f"R{k}", "_")] = (f"T{k}", "_", "L")
        r[(f"T{k}", k)] = ("B", "_", "L")
        r[(f"T{k}", "1" if k == "0" else "0")] = ("REJ", "_", "R")
        r[(f"T{k}", "_")] = ("ACC", "_", "R")
    for a in ("0", "1"):
        r[("B", a)] = ("B", a, "L")
    r[("B", "_")] = ("S", "_", "R")
    return _compile("palindrome", ["S", "R0", "R1", "T0", "T1", "B", "ACC", "REJ"], ["_", "0", "1"], r, "S",
                    ["ACC"], ["REJ"])


def counter() -> TM:
    """A binary counter that never halts (LSB at the left end): increment, walk back, repeat. The LSB cell is
    overwritten at every increment, the stress test for "most recent write"."""
    r = {("I", "1"): ("I", "0", "R"), ("I", "0"): ("B", "1", "L"), ("I", "_"): ("B", "1", "L"),
         ("B", "0"): ("B", "0", "L"), ("B", "1"): ("B", "1", "L"), ("B", "_"): ("I", "_", "R")}
    return _compile("counter", ["I", "B"], ["_", "0", "1"], r, "I")


def busy_beaver(n: int) -> TM:
    """The busy beavers BB-2, BB-3 (the Sigma champion) and BB-4 (H = halt, treated as accept), on a blank tape of
    symbols {0, 1}."""
    tables = {
        2: "A0 1RB, A1 1LB, B0 1LA, B1 1RH",
        3: "A0 1RB, A1 1RH, B0 0RC, B1 1RB, C0 1LC, C1 1LA",
        4: "A0 1RB, A1 1LB, B0 1LA, B1 0LC, C0 1RH, C1 1LD, D0 1RD, D1 0RA",
    }
    rules = {}
    for item in tables[n].split(", "):
        lhs, rhs = item.split()
        rules[(lhs[0], lhs[1])] = (rhs[2], rhs[0], rhs[1])
    states = [s for s in "ABCD"[:n]] + ["H"]
    return _compile(f"bb{n}", states, ["0", "1"], rules, "A", ["H"], two_way=True)


BB_KNOWN = {"bb2": (6, 4), "bb3": (14, 6), "bb4": (107, 13)}   # (steps, ones): the known values


def random_tm(seed: int, k_range=(2, 8), sym_range=(2, 5), p_halt: float = 0.1) -> TM:
    """A random machine: k working states and n_sym symbols drawn from the ranges, plus accept and reject; every
    (z, a) goes to accept or reject with probability p_halt (each half), else to a uniform (z', u, q). Two-way."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(k_range[0], k_range[1] + 1))
    n_sym = int(rng.integers(sym_range[0], sym_range[1] + 1))
    acc, rej = k, k + 1
    delta = {}
    for z in range(k):
        delta[z] = {}
        for a in range(n_sym):
            h = rng.random()
            z2 = acc if h < p_halt / 2 else rej if h < p_halt else int(rng.integers(k))
            delta[z][a] = (z2, int(rng.integers(n_sym)), int(rng.choice([L, R])))
    return TM(f"random{seed}", k + 2, n_sym, delta, 0, (acc,), (rej,), True)


def catalogue() -> dict[str, TM]:
    ms = [parity(), increment(), palindrome(), counter(), busy_beaver(2), busy_beaver(3), busy_beaver(4)]
    return {m.name: m for m in ms}


def inputs(tm: TM, T: int, n: int, rng: np.random.Generator) -> list[list[int]]:
    """n inputs of one length for a run of T steps: blank tapes for the busy beavers and the counter, binary strings
    for parity (m up to 32) and increment (m up to 16), palindromes and non-palindromes short enough to finish in
    T steps for the palindrome machine, strings of length min(8, T/2) over the non-blank symbols otherwise."""
    name = tm.name
    if name.startswith("bb") or name == "counter":
        return [[] for _ in range(n)]
    if name in ("parity", "increment"):
        m = max(1, min(T // 2 if name == "parity" else T // 4, 32 if name == "parity" else 16))
        return [list(rng.integers(1, 3, m)) for _ in range(n)]
    if name == "palindrome":
        m = 1
        while m < 16 and (m + 1) * (m + 4) <= T:   # the machine takes about (m+1)(m+2) steps; keep it inside T
            m += 1
        out = []
        for j in range(n):
            half = list(rng.integers(1, 3, (m + 1) // 2))
            s = (half + half[::-1][m % 2:])[:m]
            if j % 2 and m > 1:                     # every other input a near-palindrome (one symbol flipped)
                s[0] = 3 - s[0]
            out.append(s)
        return out
    m = max(1, min(8, T // 2))
    return [list(rng.integers(1, tm.n_sym, m)) if tm.n_sym > 1 else [0] * m for _ in range(n)]
