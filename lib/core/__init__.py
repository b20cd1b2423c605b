"""The machinery every chapter shares: parameters (`params`), the results store (`store`), the sweep runner
(`sweep`), claims (`claims`), tables and figures (`tables`, `plotting`), the notebook-side helper (`chapter`),
the CLI's runner (`runner`) and the chapter scaffold (`scaffold`). Nothing here computes a stored number, so no
chapter's lib hash covers it."""
