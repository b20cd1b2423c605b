"""The science the chapters compute with: task generators (`qstr`), batched models (`models`, with the authors'
per-run modules in `reference`), the batched training engine (`engine`), the training loop of the other trainers
(`training`), many one-layer Transformers trained at once (`batched_transformer`), explicit constructions (`a2`,
`rnn_constructions`, `turing`, `tm_transformer` with its runner `tm_run`, `sparse_boolean`), the FFN span argument
(`span`), named random streams (`seeds`), statistics (`stats`) and numerics (`numerics`). A chapter's lib hash covers
every module here that its compute.py imports."""
