"""The turing_simulation chapter's arms beyond the exact simulation that compute.py holds: margins.py, how far the
construction is from failing (robustness to weight perturbations, softmax temperature, Claim 3.5's toy network).
compute.py imports these modules; they never import it."""
