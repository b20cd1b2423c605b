"""The rnn_norm_growth chapter's four kinds of computation, one module each, named after its points: `construction`
(Theorem 7's hand-built accumulator), `phase` (the trained bidirectional RNNs of the phase diagram, with their
training to a decision), `a2` (the Transformer's attention scale of Eq. A.2) and `memoriser` (Theorem 9's memoriser).
Each holds its point spec, the spec's builder from the parameters and its run function;
lib.chapters.rnn_norm_growth.compute lists the points. No module here imports compute."""
