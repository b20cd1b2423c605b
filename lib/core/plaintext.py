"""TeX as plain text, for what is read outside a browser: `lib diff` in a terminal prints a claim row's measured value
(whose math a page typesets) through `plain_text`.

    >>> plain_text(r"$\\hat n$ 1.69e+08 $\\to$ 1.04e+09, slope 2.33 in $\\log\\log T$")
    'n 1.69e+08 → 1.04e+09, slope 2.33 in log log T'
"""
from __future__ import annotations

import re

SYMBOLS = {"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "~",
           "gtrsim": "≳", "lesssim": "≲", "propto": "∝", "times": "×", "cdot": "·", "pm": "±", "infty": "∞",
           "to": "→", "rightarrow": "→", "in": "∈", "sum": "Σ", "prod": "Π", "top": "ᵀ", "dots": "...",
           "ldots": "...", "cdots": "...", "lVert": "‖", "rVert": "‖", "Vert": "‖", "lvert": "|", "rvert": "|",
           "vert": "|", "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
           "ell": "ℓ", "partial": "∂", "nabla": "∇", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ",
           "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ",
           "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ",
           "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
           "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω"}
FONTS = ("text", "mathrm", "mathbf", "mathcal", "mathbb", "mathfrak", "mathit", "mathsf", "operatorname", "rm",
         "bf", "it", "hat", "bar", "tilde", "boldsymbol")
_GROUP = r"\{\s*([^{}]*)\}"


def plain_text(tex: str) -> str:
    """A row's text as a terminal shows it: its math ($...$) without TeX. Fonts and accents keep their letters
    (\\mathrm{lin} -> lin), symbols become their characters (\\le -> ≤, \\lVert -> ‖), \\frac{a}{b} -> (a)/(b),
    \\sqrt{x} -> √(x), braces of sub- and superscripts go (E_{\\log} -> E_log), and any other command keeps its name.

        >>> plain_text(r"max $\\lvert z\\rvert$ = 2.0 ($N=6$); $E_{\\rm lin}(8)$ vs $\\sqrt q\\,\\varepsilon$, $\\frac{1}{2}$")
        'max |z| = 2.0 (N=6); E_lin(8) vs √q ε, (1)/(2)'
    """
    def command(c: re.Match) -> str:   # a font alone (\\rm lin) goes; an operator (\\log T) keeps a space before a word
        name, after = c.group(1), c.group(2)
        if name in FONTS:
            return ""
        return SYMBOLS.get(name) or name + (" " if after.isalnum() or after == "\\" else "")

    def math(m: re.Match) -> str:
        t = m.group(1)
        for _ in range(4):   # nested groups, innermost first
            t = re.sub(r"\\frac\s*" + _GROUP + r"\s*" + _GROUP, r"(\1)/(\2)", t)
            t = re.sub(r"\\sqrt\s*" + _GROUP, r"√(\1)", t)
            t = re.sub(r"\\binom\s*" + _GROUP + r"\s*" + _GROUP, r"C(\1, \2)", t)
            t = re.sub(r"\\(?:" + "|".join(FONTS) + r")\s*" + _GROUP, r"\1", t)
        t = re.sub(r"\\sqrt\s*", "√", t)
        t = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)\b\s*", "", t)
        t = re.sub(r"\\[,;:! ]", " ", t)
        t = re.sub(r"\\([{}%$&#_|])", r"\1", t)
        t = re.sub(r"\\([A-Za-z]+) ?(?=(.?))", command, t)
        t = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", t)
        t = t.replace("{", "").replace("}", "")
        return re.sub(r"\s+", " ", t).strip()
    return re.sub(r"\$\$?([^$]*)\$?\$", math, tex)
