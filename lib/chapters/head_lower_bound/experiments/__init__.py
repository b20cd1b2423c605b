"""The head_lower_bound chapter's arms that train a model of their own, one module each: `figure2` (the authors'
attention_weights.py: torch multi-head attention on simple-1STR, a fixed dataset, epochs and weight decay).
compute.py imports them and lists their points; they never import compute.py."""
